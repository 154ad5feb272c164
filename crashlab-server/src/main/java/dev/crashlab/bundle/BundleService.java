package dev.crashlab.bundle;

import dev.crashlab.reader.ParseStatus;
import dev.crashlab.unpack.BundleRejectedException;
import dev.crashlab.unpack.BundleUnpacker;
import dev.crashlab.unpack.StagedFile;
import dev.crashlab.unpack.UnpackLimits;

import dev.crashlab.bundle.BundleViews.ArtifactContent;
import dev.crashlab.bundle.BundleViews.BundleSummary;
import dev.crashlab.bundle.BundleViews.BundleView;
import dev.crashlab.bundle.BundleViews.Page;
import dev.crashlab.config.CrashLabConfig;
import dev.crashlab.metrics.Waits;
import dev.crashlab.sniff.ArtifactSniffer;
import dev.crashlab.sniff.ArtifactType;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.panache.common.Sort;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.persistence.LockModeType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/**
 * Stores uploads as bundles: unpacks them safely, types every file, and keeps rows and blobs in step.
 *
 * <p>NOTE: the database is the source of truth for which blobs are in use. An upload claims its hashes before it
 * stores a byte and drops the claims in the transaction that writes its rows; a blob goes only through
 * {@link BlobClaims#deleteIfUnused}, which keeps every blob a row or a live claim names. No lock is held while bytes
 * travel, so uploads on this server and on others never wait for each other. The sweep of unreferenced blobs runs
 * on one server at a time ({@code blob_guard} row, taken with {@code skip locked}; uploads never touch it).
 */
@ApplicationScoped
public class BundleService {

    private static final Logger LOG = Logger.getLogger(BundleService.class);
    private static final int MAX_PAGE_SIZE = 100;
    /** The notes column's width (V1 migration). */
    public static final int MAX_NOTES = 4000;

    @Inject
    dev.crashlab.config.DbClock clock;
    @Inject
    CrashLabConfig config;

    private final ArtifactSniffer sniffer = new ArtifactSniffer();
    @Inject
    BlobStore blobs;
    @Inject
    Waits waits;
    @Inject
    StoredBlobs storedBlobs;
    @Inject
    Deployment deployment;
    @Inject
    BlobClaims claims;
    @Inject
    ReadLeases leases;
    @Inject
    UploadSlots slots;
    private Path scratch;

    @PostConstruct
    void init() {
        Path dataDir = config.dataDir().toAbsolutePath().normalize();
        scratch = dataDir.resolve("tmp");
        try {
            Files.createDirectories(scratch);
            removeStaleStaging();
        } catch (IOException e) {
            throw new IllegalStateException("cannot prepare scratch folder " + scratch + ": " + e.getMessage(), e);
        }
    }

    /** Multipart uploads (and, in a local store, unfinished writes) older than this are taken for abandoned. */
    public static final java.time.Duration ABANDONED = java.time.Duration.ofHours(1);

    /**
     * Removes what a crash can leave behind: unfinished writes (a local store's {@code .incoming/}, an object store's
     * multipart uploads older than {@link #ABANDONED}), blobs that no artifact row names (stored by an upload whose
     * rows never committed) and claims of uploads that died. One server at a time: when another server sweeps, this
     * returns {@code null} at once.
     *
     * <p>NOTE: it lists every blob and every referenced hash, which is cheap for the stores this is meant for
     * (thousands of bundles) and should become incremental for much larger ones. Each deletion is
     * {@link BlobClaims#deleteIfUnused}, so an upload running meanwhile keeps its blobs.
     *
     * @param startup whether this is the start-up sweep (a local store's unfinished writes are then all abandoned)
     */
    public SweepResult sweep(boolean startup) throws IOException {
        java.util.concurrent.atomic.AtomicReference<SweepResult> result = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.atomic.AtomicReference<IOException> failure = new java.util.concurrent.atomic.AtomicReference<>();
        QuarkusTransaction.requiringNew().timeout(SWEEP_TIMEOUT_SECONDS).run(() -> {
            if (Bundle.getEntityManager().createNativeQuery("select id from blob_guard where id = 1 for update skip locked")
                    .getResultList().isEmpty()) {
                LOG.debug("another server is sweeping the blob store");
                return;
            }
            try {
                result.set(sweepAlone(startup));
            } catch (IOException e) {
                failure.set(e);
            }
        });
        if (failure.get() != null) {
            throw failure.get();
        }
        return result.get();
    }

    /** How long one sweep may hold the {@code blob_guard} row. */
    private static final int SWEEP_TIMEOUT_SECONDS = 6 * 3600;

    private SweepResult sweepAlone(boolean startup) throws IOException {
        int incoming = blobs.clearIncoming(startup && !storedBlobs.shared() ? java.time.Duration.ZERO : ABANDONED);
        int staleClaims = claims.pruneStale();
        if (staleClaims > 0) {
            LOG.infof("dropped %d claim(s) of uploads that never finished (older than %s)", staleClaims, BlobClaims.STALE);
        }
        Instant newest = QuarkusTransaction.requiringNew().call(() -> Bundle.getEntityManager()
                .createQuery("select max(b.uploadedAt) from Bundle b", Instant.class).getSingleResult());
        if (newest == null) {
            // an empty (or new) database says nothing about which blobs are in use: it must not sweep anything
            LOG.infof("the database holds no bundles: not sweeping the blob store %s", storedBlobs.where());
            return new SweepResult(incoming, 0);
        }
        Set<String> referenced = QuarkusTransaction.requiringNew().call(() -> new HashSet<>(Artifact.getEntityManager()
                .createQuery("select distinct a.sha256 from Artifact a", String.class)
                .getResultList()));
        Instant now = Instant.now();
        Instant cutoff = (newest.isBefore(now) ? newest : now).minus(config.blobGrace());
        List<String> doomed = new ArrayList<>();
        int recent = 0;
        for (Map.Entry<String, Instant> b : storedBlobs.listWithTimes().entrySet()) {
            if (referenced.contains(b.getKey())) {
                continue;
            }
            if (b.getValue().isBefore(cutoff)) {
                doomed.add(b.getKey());
            } else {
                recent++;
            }
        }
        if (recent > 0) {
            LOG.infof("keeping %d unreferenced blob(s) written after %s (the newest bundle, %s, less the grace period %s)",
                    recent, cutoff, newest, config.blobGrace());
        }
        if (!doomed.isEmpty()) {
            doomed.sort(null);
            LOG.warnf("deleting %d unreferenced blob(s) written before %s from %s: %s", doomed.size(), cutoff,
                    storedBlobs.where(), String.join(", ", doomed));
        }
        int orphans = 0;
        for (String sha : doomed) {
            if (claims.deleteIfUnused(sha)) {
                orphans++;
            }
        }
        return new SweepResult(incoming, orphans);
    }

    /** What {@link #sweep} removed. */
    public record SweepResult(int incomingFiles, int orphanBlobs) {}

    /**
     * Sweeps once the deployment's ownership of the store is established ({@link Deployment}), at start-up and then
     * periodically; never fails.
     */
    void sweepQuietly(boolean startup) {
        try {
            SweepResult r = sweep(startup);
            if (r != null && r.incomingFiles() + r.orphanBlobs() > 0) {
                LOG.infof("removed %d abandoned blob write(s) or multipart upload(s) and %d unreferenced blob(s)",
                        r.incomingFiles(), r.orphanBlobs());
            }
        } catch (IOException | RuntimeException e) {
            LOG.warnf("could not sweep the blob store (uploads still work): %s", e.toString());
        }
    }

    /** Returns the blob store (for the content endpoint and tests). */
    public BlobStore blobs() {
        return blobs;
    }

    /** Returns a fresh scratch file path on the blob store's disk, for receiving a request body. */
    public Path newScratchFile(String suffix) throws IOException {
        Files.createDirectories(scratch);
        return scratch.resolve("receive-" + UUID.randomUUID() + suffix);
    }

    /** Creates a fresh scratch folder on the blob store's disk, for receiving the parts of a request. */
    public Path newScratchDir() throws IOException {
        return Files.createDirectories(scratch.resolve("receive-" + UUID.randomUUID()));
    }

    /** Deletes a scratch file or folder and everything in it. */
    public void discard(Path scratchPath) {
        deleteTree(scratchPath);
    }

    /** Returns the unpacking limits from the configuration. */
    public UnpackLimits limits() {
        CrashLabConfig.Upload u = config.upload();
        return new UnpackLimits(u.maxExpandedSize().asLongValue(), u.maxFiles(), u.maxDepth(), u.maxRatio(),
                u.ratioGrace().asLongValue());
    }

    /** Returns the largest request body accepted, in bytes. */
    public long maxRequestBytes() {
        return config.upload().maxRequestSize().asLongValue();
    }

    /**
     * Stores the uploaded files as one new bundle and returns it.
     *
     * @param requestedName the bundle's name, or null/blank for the first file's name
     * @param notes free text from the uploader (what ran, what they tried), or null; at most {@link #MAX_NOTES}
     * @param uploads the received files, handed over: a file stored as it is (not an archive) is moved away from its
     *                place, so pass files of the server's own (scratch space), never one to keep
     * @throws BundleRejectedException if the upload is unsafe, over a limit or malformed; nothing is kept
     */
    public BundleView create(String requestedName, String notes, List<Upload> uploads)
            throws BundleRejectedException, IOException {
        return create(requestedName, notes, uploads, CommitCheck.NONE);
    }

    /**
     * What must hold, or be written, in the same transaction as a new bundle's rows: who uploaded it, and whether that
     * keeps them within their quota. It runs after the rows are written and before they commit; an exception from it
     * rolls the bundle back (rows and the blobs this upload brought in) and reaches the caller.
     */
    @FunctionalInterface
    public interface CommitCheck {
        CommitCheck NONE = (id, size) -> {};

        /** Runs in the storing transaction; {@code storedBytes} is what the bundle's files take unpacked, as stored. */
        void inCommit(long bundleId, long storedBytes);
    }

    /** As {@link #create(String, String, List)}, running {@code check} inside the transaction that stores the bundle. */
    public BundleView create(String requestedName, String notes, List<Upload> uploads, CommitCheck check)
            throws BundleRejectedException, IOException {
        deployment.requireStore();
        try {
            // on a low-priority upload thread: report reads and searches get the cores first (UploadSlots)
            return slots.run(() -> store(requestedName, notes, uploads, check));
        } catch (BundleRejectedException | IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e); // store throws nothing else
        }
    }

    private BundleView store(String requestedName, String notes, List<Upload> uploads, CommitCheck check)
            throws BundleRejectedException, IOException {
        if (uploads.isEmpty()) {
            throw new BundleRejectedException(BundleRejectedException.Kind.EMPTY,
                    "the request holds no files: send an archive, or files as multipart parts named `file`");
        }
        List<String> names = new ArrayList<>();
        long total = 0;
        for (Upload u : uploads) {
            names.add(BundleUnpacker.validateName(u.name()));
            total += Files.size(u.file());
        }
        String name = requestedName == null || requestedName.isBlank()
                ? names.getFirst()
                : BundleUnpacker.validateName(requestedName.strip());
        Path staging = scratch.resolve("staging-" + UUID.randomUUID());
        try (BundleUnpacker unpacker = new BundleUnpacker(limits(), staging)) {
            boolean single = uploads.size() == 1;
            for (int i = 0; i < uploads.size(); i++) {
                // the received file is ours: a loose one is moved into staging, its SHA-256 taken from the receiver
                unpacker.addOwned(names.get(i), uploads.get(i).file(), uploads.get(i).sha256(), single);
            }
            List<StagedFile> files = new ArrayList<>(unpacker.files());
            if (files.isEmpty()) {
                throw new BundleRejectedException(BundleRejectedException.Kind.EMPTY,
                        "`" + names.getFirst() + "` holds no files");
            }
            List<Artifact> artifacts = new ArrayList<>(files.size());
            Map<String, Integer> redacted = new java.util.TreeMap<>();
            java.util.Set<String> paths = new java.util.HashSet<>();
            for (int i = 0; i < files.size(); i++) {
                StagedFile f = files.get(i);
                Artifact a = new Artifact();
                a.path = uniquePath(redactText(f.path(), redacted, 1000), paths);
                a.type = sniffer.sniff(f.path(), f.file()); // the name as uploaded: its extension may say what it is
                f = redact(f, a.type, redacted);
                files.set(i, f);
                a.size = f.size();
                a.sha256 = f.sha256();
                a.parseStatus = ParseStatus.PENDING;
                artifacts.add(a);
            }
            Bundle bundle = new Bundle();
            bundle.name = redactText(name, redacted, 512);
            bundle.uploadedAt = clock.now(); // the database's clock: servers' clocks may differ
            bundle.size = total;
            bundle.sha256 = BundleManifest.sha256(names, uploads.stream().map(Upload::sha256).toList());
            bundle.status = BundleStatus.PROCESSING; // read and diagnosed in the background (ingest.BundleIngest)
            bundle.notes = notes == null || notes.isBlank() ? null : redactText(notes.strip(), redacted, MAX_NOTES);
            bundle.redactions = redacted;
            leases.hold(bundle); // this server reads it; another takes it over if this one dies (BundleIngest)
            return commit(bundle, artifacts, files, check);
        }
    }

    /**
     * Replaces secrets in a short user-supplied text we store (a bundle's name, its notes, a file name inside it, a
     * resolution's note), when redaction is on; adds what was removed to {@code counts}. The result has at most
     * {@code maxChars} characters.
     */
    public String redactText(String text, Map<String, Integer> counts, int maxChars) {
        String out = text == null || !config.redaction().enabled() ? text : SecretRedactor.redact(text, counts);
        // a marker can be longer than the secret it replaced: keep within the column
        return out != null && out.length() > maxChars ? out.substring(0, maxChars - 1) + "…" : out;
    }

    /** {@code path}, or with " (2)", " (3)"... before its extension when another file of the bundle has that path. */
    private static String uniquePath(String path, java.util.Set<String> taken) {
        String candidate = path;
        int dot = path.lastIndexOf('.');
        int slash = path.lastIndexOf('/');
        String stem = dot > slash + 1 ? path.substring(0, dot) : path;
        String ext = dot > slash + 1 ? path.substring(dot) : "";
        for (int n = 2; !taken.add(candidate); n++) {
            candidate = stem + " (" + n + ")" + ext;
        }
        return candidate;
    }

    /**
     * Replaces secrets in a staged text file before it is stored or indexed (the one place this happens);
     * adds what was removed to {@code counts} and returns the file as it will be stored.
     */
    private StagedFile redact(StagedFile f, ArtifactType type, Map<String, Integer> counts) throws IOException {
        if (!config.redaction().enabled() || type == ArtifactType.EVTX
                || type == ArtifactType.BINARY && !SecretRedactor.mostlyText(f.file())) {
            return f; // a text log with a stray NUL is classed binary, and is still redacted
        }
        Path out = f.file().resolveSibling(f.file().getFileName() + ".redacted");
        SecretRedactor.Counts found = SecretRedactor.redactFile(f.file(), out);
        if (found.byKind().isEmpty()) {
            return f;
        }
        found.byKind().forEach((k, v) -> counts.merge(k, v, Integer::sum));
        Files.move(out, f.file(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        java.security.MessageDigest digest = BlobStore.sha256();
        try (java.io.InputStream in = new java.security.DigestInputStream(Files.newInputStream(f.file()), digest)) {
            in.transferTo(java.io.OutputStream.nullOutputStream());
        }
        return new StagedFile(f.path(), f.file(), Files.size(f.file()), java.util.HexFormat.of().formatHex(digest.digest()));
    }

    private BundleView commit(Bundle bundle, List<Artifact> artifacts, List<StagedFile> files, CommitCheck check)
            throws IOException {
        // claimed before the store is looked at: from here on no deletion removes these blobs (BlobClaims)
        String claim = claims.claim(files.stream().map(StagedFile::sha256).toList());
        {
            List<String> added = new ArrayList<>();
            try {
                for (StagedFile f : files) {
                    if (blobs.putFile(f.file(), f.sha256())) {
                        added.add(f.sha256());
                    }
                }
                // one insert per artifact (identity ids): a large zip needs longer than the default minute under load
                return QuarkusTransaction.requiringNew().timeout(BlobClaims.timeoutSeconds(artifacts.size())).call(() -> {
                    claims.releaseIn(claim); // the artifact rows below name the blobs from now on
                    for (Artifact a : artifacts) {
                        a.bundle = bundle;
                        bundle.artifacts.add(a);
                    }
                    bundle.persist();
                    bundle.artifacts.sort(Comparator.comparing(a -> a.path));
                    // the quota counts what is stored (unpacked, after redaction), not what was uploaded: a small
                    // zip can unpack to hundreds of times its size
                    check.inCommit(bundle.id, artifacts.stream().mapToLong(a -> a.size).sum());
                    return BundleView.of(bundle);
                });
            } catch (IOException | RuntimeException e) {
                // the blobs this upload brought in go unless another upload claimed them meanwhile or a row names them
                try {
                    claims.release(claim);
                    for (String sha : added) {
                        claims.deleteIfUnused(sha);
                    }
                } catch (IOException | RuntimeException cleanup) {
                    e.addSuppressed(cleanup); // the sweep removes them later
                }
                throw e;
            }
        }
    }

    /**
     * Locks the bundle's row until the caller's transaction ends; false when there is no such bundle. A transaction
     * that writes rows about a bundle (its facts, its diagnosis) locks it first, as {@link #delete} does: a delete then
     * waits for those rows and removes them with the bundle, or the writer finds the bundle gone, and the two never
     * deadlock. Needs an active transaction.
     */
    public boolean lockRow(long id) {
        return waits.time(Waits.What.BUNDLE_ROW_LOCK, () -> Bundle.findById(id, LockModeType.PESSIMISTIC_WRITE) != null);
    }

    /**
     * Locks the bundle's row as {@link #lockRow} does if no other transaction holds it, never waiting; false when it is
     * held, or there is no such bundle. For readers that would store what they computed, and may as well not.
     */
    public boolean tryLockRow(long id) {
        return !Bundle.getEntityManager().createNativeQuery("select id from bundle where id = ?1 for update skip locked")
                .setParameter(1, id).getResultList().isEmpty();
    }

    /** Returns the bundle with its artifacts, if it exists. */
    public Optional<BundleView> find(long id) {
        return QuarkusTransaction.requiringNew().call(
                () -> Bundle.<Bundle>findByIdOptional(id).map(BundleView::of));
    }

    /**
     * The earliest bundle before {@code id} that holds exactly the same set of files (by SHA-256) as {@code id}
     * ({@code uploadedBy} left null: ownership is not this package's); empty when there is none or {@code id} has no files.
     */
    public Optional<BundleViews.SameFiles> sameFilesAs(long id) {
        return QuarkusTransaction.requiringNew().call(() -> {
            List<?> ids = Bundle.getEntityManager().createNativeQuery(
                    "select o.bundle_id from artifact mine join artifact o on o.sha256 = mine.sha256 and o.bundle_id < mine.bundle_id"
                            + " where mine.bundle_id = ?1 group by o.bundle_id"
                            // every one of this bundle's files is there ...
                            + " having count(distinct o.sha256) = (select count(distinct x.sha256) from artifact x where x.bundle_id = ?1)"
                            // ... and nothing else
                            + " and count(distinct o.sha256) = (select count(distinct y.sha256) from artifact y where y.bundle_id = o.bundle_id)"
                            + " order by o.bundle_id")
                    .setParameter(1, id).setMaxResults(1).getResultList();
            return ids.stream().findFirst().map(v -> Bundle.<Bundle>findById(((Number) v).longValue()))
                    .map(b -> new BundleViews.SameFiles(b.id, b.name, b.uploadedAt, null));
        });
    }

    /** Returns one page of bundles, newest first. */
    public Page<BundleSummary> list(int page, int size) {
        int p = Math.max(0, page);
        int s = Math.clamp(size, 1, MAX_PAGE_SIZE);
        return QuarkusTransaction.requiringNew().call(() -> {
            List<Bundle> bundles = Bundle.<Bundle>findAll(Sort.descending("uploadedAt", "id")).page(p, s).list();
            Map<Long, Long> counts = new HashMap<>();
            if (!bundles.isEmpty()) {
                List<Long> ids = bundles.stream().map(b -> b.id).toList();
                Bundle.getEntityManager()
                        .createQuery("select a.bundle.id, count(a) from Artifact a where a.bundle.id in :ids group by a.bundle.id",
                                Object[].class)
                        .setParameter("ids", ids)
                        .getResultList()
                        .forEach(row -> counts.put((Long) row[0], (Long) row[1]));
            }
            List<BundleSummary> items = bundles.stream()
                    .map(b -> new BundleSummary(b.id, b.name, b.uploadedAt, b.size, b.sha256, b.status,
                            counts.getOrDefault(b.id, 0L)))
                    .toList();
            return new Page<>(items, p, s, Bundle.count());
        });
    }

    /** Which of these bundles are pinned (kept by retention whatever their age). */
    public Set<Long> pinned(List<Long> ids) {
        if (ids.isEmpty()) {
            return Set.of();
        }
        return QuarkusTransaction.requiringNew().call(() -> Set.copyOf(Bundle.getEntityManager()
                .createQuery("select b.id from Bundle b where b.id in :ids and b.pinned = true", Long.class)
                .setParameter("ids", ids).getResultList()));
    }

    /** Returns what is needed to serve one artifact's bytes, if the bundle holds that artifact. */
    public Optional<ArtifactContent> artifact(long bundleId, long artifactId) {
        return QuarkusTransaction.requiringNew().call(() -> Artifact.<Artifact>findByIdOptional(artifactId)
                .filter(a -> a.bundle.id == bundleId)
                .map(a -> new ArtifactContent(a.path, a.type.name(), a.size, a.sha256)));
    }

    /** Deletes a bundle and every blob no other bundle uses; returns false if there was no such bundle. */
    public boolean delete(long id) throws IOException {
        {
            Set<String> hashes = QuarkusTransaction.requiringNew().call(() -> {
                Bundle b = waits.time(Waits.What.BUNDLE_ROW_LOCK,
                        () -> Bundle.<Bundle>findById(id, LockModeType.PESSIMISTIC_WRITE)); // see lockRow
                if (b == null) {
                    return null;
                }
                Set<String> shas = new HashSet<>();
                b.artifacts.forEach(a -> shas.add(a.sha256));
                b.delete();
                CrashChange.record(id, CrashChange.DELETE); // every server's past-crash index forgets it
                return shas;
            });
            if (hashes == null) {
                return false;
            }
            if (!hashes.isEmpty()) {
                Set<String> stillUsed = QuarkusTransaction.requiringNew().call(() -> new HashSet<>(Artifact.getEntityManager()
                        .createQuery("select distinct a.sha256 from Artifact a where a.sha256 in :shas", String.class)
                        .setParameter("shas", hashes)
                        .getResultList()));
                for (String sha : hashes) {
                    if (!stillUsed.contains(sha)) {
                        claims.deleteIfUnused(sha); // re-checked under its stripe row: an upload may claim it meanwhile
                    }
                }
            }
            return true;
        }
    }

    private void removeStaleStaging() throws IOException {
        // Left by a process that died mid-upload; nothing in them was ever published.
        try (Stream<Path> stale = Files.list(scratch)) {
            for (Path p : stale.filter(p -> {
                String n = p.getFileName().toString();
                return n.startsWith("staging-") || n.startsWith("receive-");
            }).toList()) {
                deleteTree(p);
            }
        }
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    LOG.warnf("could not remove stale scratch file %s: %s", p, e.getMessage());
                }
            });
        } catch (IOException e) {
            LOG.warnf("could not remove stale scratch folder %s: %s", root, e.getMessage());
        }
    }
}
