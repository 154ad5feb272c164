package dev.crashlab.bundle;

import dev.crashlab.reader.ParseStatus;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The JSON shapes of bundles and artifacts that the API returns (stable: the UI and scripts read them). */
public final class BundleViews {

    private BundleViews() {}

    /**
     * A bundle with its artifacts.
     *
     * @param displayName the name the Bundles list shows for it (a collector's {@code crash-bundle-<date>.zip} named by
     *     its error, framework and machine once diagnosed); {@code name} until then
     */
    public record BundleView(
            long id,
            String name,
            String displayName,
            Instant uploadedAt,
            long size,
            String sha256,
            BundleStatus status,
            @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) String notes,
            List<ArtifactView> artifacts,
            Progress progress,
            List<String> budgetNotes,
            @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) String readError,
            Map<String, Integer> redactions,
            boolean pinned,
            @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) SameFiles sameFilesAs) {

        static BundleView of(Bundle b) {
            return new BundleView(b.id, b.name, b.name, b.uploadedAt, b.size, b.sha256, b.status, b.notes,
                    b.artifacts.stream().map(ArtifactView::of).toList(),
                    new Progress(b.artifactsRead, b.artifacts.size(), b.readerVersion), BundleViews.budgetNotesOf(b.budgetHitsJson),
                    b.readError, new TreeMap<>(b.redactions), b.pinned, null);
        }

        /** This view saying which earlier bundle holds the same files (null: none). */
        public BundleView withSameFilesAs(SameFiles same) {
            return new BundleView(id, name, displayName, uploadedAt, size, sha256, status, notes, artifacts, progress, budgetNotes,
                    readError, redactions, pinned, same);
        }

        /** This view with the name the list shows for it. */
        public BundleView withDisplayName(String shown) {
            return new BundleView(id, name, shown, uploadedAt, size, sha256, status, notes, artifacts, progress, budgetNotes,
                    readError, redactions, pinned, sameFilesAs);
        }
    }

    /**
     * The earliest other bundle whose files are exactly this one's (the same set of SHA-256s, after redaction): an
     * upload of the same crash again. It is stored all the same; the upload's answer and the report say so.
     *
     * @param uploadedBy who uploaded it, or null when not recorded
     */
    public record SameFiles(long bundleId, String name, Instant uploadedAt, @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) String uploadedBy) {}

    /**
     * How far reading a bundle has got.
     *
     * @param artifactsRead artifacts read so far by the reading in progress (all of them once it is done)
     * @param artifacts the bundle's artifacts
     * @param readerVersion the reader version whose results are stored; null before the first reading is stored
     */
    public record Progress(int artifactsRead, int artifacts,
            @org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) Integer readerVersion) {}

    // the messages of facts.BudgetHit, as the bundle page shows them
    private static List<String> budgetNotesOf(String json) {
        if (json == null) {
            return List.of();
        }
        try {
            List<String> out = new java.util.ArrayList<>();
            dev.crashlab.reader.FactsJson.mapper().readTree(json).forEach(n -> out.add(n.path("message").asText()));
            return out;
        } catch (java.io.IOException e) {
            return List.of();
        }
    }

    /** One file of a bundle. */
    public record ArtifactView(
            long id, String path, String type, String typeLabel, long size, String sha256, ParseStatus parseStatus) {

        static ArtifactView of(Artifact a) {
            return new ArtifactView(a.id, a.path, a.type.name(), a.type.label(), a.size, a.sha256, a.parseStatus);
        }
    }

    /** A bundle as the list shows it: no artifacts, just their count. */
    public record BundleSummary(
            long id, String name, Instant uploadedAt, long size, String sha256, BundleStatus status, long artifactCount) {}

    /** One page of a newest-first list. */
    public record Page<T>(List<T> items, int page, int size, long total) {}

    /** What the content endpoint needs to serve an artifact's bytes. */
    public record ArtifactContent(String path, String type, long size, String sha256) {}
}
