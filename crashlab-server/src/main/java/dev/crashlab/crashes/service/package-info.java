/**
 * Past crashes as Quarkus beans: CrashSearchService keeps the index current by observing DiagnosisStored and answers the diagnosis through the ConfirmedCrashLookup interface the diagnosis owns.
 */
package dev.crashlab.crashes.service;
