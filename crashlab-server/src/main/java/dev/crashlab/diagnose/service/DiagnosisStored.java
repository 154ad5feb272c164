package dev.crashlab.diagnose.service;

import dev.crashlab.diagnose.Diagnosis;
import dev.crashlab.fact.Fact;
import java.util.List;

/**
 * A bundle's diagnosis was computed and is about to be stored in {@code row}; fired synchronously in the storing
 * transaction. The past crashes observe it to derive, store ({@code row.signatureJson}) and index the signature.
 *
 * @param facts the bundle's own facts (no confirmed-crash evidence)
 * @param confirmedId the confirmed cause's article id, or null
 */
public record DiagnosisStored(long bundleId, String bundleName, List<String> paths, List<Fact> facts,
                              Diagnosis diagnosis, String confirmedId, String confirmedTitle, BundleDiagnosis row) {}
