/**
 * Typed settings (CrashLabConfig and its groups such as LabConfig) (the build-stamped version is dev.crashlab.AppVersion, in the core). Depends on nothing else in CrashLab.
 */
package dev.crashlab.config;

