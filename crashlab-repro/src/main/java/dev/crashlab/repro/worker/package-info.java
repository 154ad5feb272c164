/**
 * The worker loop (claims jobs over HTTP or in-process), child-JVM supervision and the replay child main. Plain Java.
 */
package dev.crashlab.repro.worker;
