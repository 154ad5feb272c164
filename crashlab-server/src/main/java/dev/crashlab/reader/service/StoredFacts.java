package dev.crashlab.reader.service;

import dev.crashlab.bundle.Artifact;
import dev.crashlab.bundle.Bundle;
import dev.crashlab.reader.ParseStatus;
import dev.crashlab.diagnose.TextLine;
import dev.crashlab.reader.ArtifactRead;
import dev.crashlab.reader.BundleFacts;
import dev.crashlab.reader.FactsJson;
import io.quarkus.narayana.jta.QuarkusTransaction;
import dev.crashlab.metrics.Waits;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.LockModeType;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Keeps what reading a bundle gave, and gives it back without touching the blobs: the diagnosis, past crashes,
 * reproduction drafts and the {@code /facts} API read it here.
 */
@ApplicationScoped
public class StoredFacts {

    @Inject
    Waits waits;

    /**
     * Stores a bundle's reading in one transaction, replacing any earlier one: per artifact its facts, problems,
     * text window and parse status; on the bundle the reader version and the budgets reached.
     *
     * @return false when the bundle was deleted meanwhile
     */
    public boolean store(long bundleId, BundleFacts read) {
        return QuarkusTransaction.requiringNew().call(() -> {
            Bundle bundle = waits.time(Waits.What.BUNDLE_ROW_LOCK, // a delete waits (BundleService.lockRow)
                    () -> Bundle.<Bundle>findById(bundleId, LockModeType.PESSIMISTIC_WRITE));
            if (bundle == null) {
                return false;
            }
            Map<String, Artifact> byPath = new HashMap<>();
            bundle.artifacts.forEach(a -> byPath.put(a.path, a));
            ArtifactFactsRow.delete("bundleId", bundleId);
            ArtifactFactsRow.flush();
            Map<ParseStatus, List<Long>> byStatus = new EnumMap<>(ParseStatus.class);
            for (ArtifactRead a : read.artifacts()) {
                Artifact artifact = byPath.get(a.path());
                if (artifact == null) {
                    continue;
                }
                ArtifactFactsRow row = new ArtifactFactsRow();
                row.artifactId = artifact.id;
                row.bundleId = bundleId;
                row.readerVersion = read.parserVersion();
                row.bytesRead = a.bytesRead();
                row.factsJson = FactsJson.facts(a.facts());
                row.problemsJson = FactsJson.problems(a.problems());
                row.windowJson = FactsJson.window(a.window());
                row.persist();
                byStatus.computeIfAbsent(a.status(), k -> new ArrayList<>()).add(artifact.id);
            }
            // one update per status, not per artifact: a bundle can hold thousands of files
            byStatus.forEach((status, ids) -> Artifact.update("parseStatus = ?1 where id in ?2", status, ids));
            bundle.readerVersion = read.parserVersion();
            bundle.artifactsRead = read.artifacts().size();
            bundle.budgetHitsJson = read.budgetHits().isEmpty() ? null : FactsJson.budgetHits(read.budgetHits());
            return true;
        });
    }

    /**
     * Returns the stored reading of a bundle; empty when the bundle does not exist or has not been read yet.
     *
     * @param withWindows whether to load the text windows too (the diagnosis needs them; the facts API does not)
     */
    public Optional<BundleFacts> find(long bundleId, boolean withWindows) {
        return QuarkusTransaction.requiringNew().call(() -> {
            Bundle bundle = Bundle.findById(bundleId);
            if (bundle == null || bundle.readerVersion == null) {
                return Optional.<BundleFacts>empty();
            }
            Map<Long, ArtifactFactsRow> rows = new HashMap<>();
            ArtifactFactsRow.<ArtifactFactsRow>list("bundleId", bundleId).forEach(r -> rows.put(r.artifactId, r));
            List<ArtifactRead> artifacts = new ArrayList<>();
            for (Artifact a : bundle.artifacts) {
                ArtifactFactsRow r = rows.get(a.id);
                if (r == null) {
                    continue;
                }
                List<TextLine> window = withWindows ? FactsJson.readWindow(a.path, r.windowJson) : List.of();
                artifacts.add(new ArtifactRead(a.path, a.type.name(), a.parseStatus, FactsJson.readFacts(r.factsJson),
                        FactsJson.readProblems(r.problemsJson), window, r.bytesRead));
            }
            artifacts.sort(java.util.Comparator.comparing(ArtifactRead::path));
            return Optional.of(new BundleFacts(bundle.readerVersion, artifacts, FactsJson.readBudgetHits(bundle.budgetHitsJson)));
        });
    }
}
