/** CrashLab: diagnoses crashed GPU deep-learning jobs from the crash bundles their owners upload. */
package dev.crashlab;
