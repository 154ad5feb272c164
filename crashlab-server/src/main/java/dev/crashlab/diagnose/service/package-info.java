/**
 * Stored diagnoses (Quarkus beans): DiagnosisService computes a bundle's diagnosis, stores it with the KB stamp and recomputes it when stale; confirmed causes (ResolutionService, BundleResolution). It reacts to finished replays through the JobFinished event and publishes DiagnosisStored; it asks past crashes only through ConfirmedCrashLookup.
 */
package dev.crashlab.diagnose.service;
