/**
 * Typed settings (CrashLabConfig and its groups such as LabConfig) and the build-stamped AppVersion. Depends on nothing else in CrashLab.
 */
package dev.crashlab.config;
