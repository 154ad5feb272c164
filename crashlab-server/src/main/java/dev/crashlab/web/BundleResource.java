package dev.crashlab.web;

import dev.crashlab.account.Roles;
import jakarta.annotation.security.RolesAllowed;
import dev.crashlab.bundle.BlobStore;
import dev.crashlab.unpack.BundleRejectedException;
import dev.crashlab.bundle.BundleService;
import dev.crashlab.unpack.BundleUnpacker;
import dev.crashlab.bundle.BundleViews.ArtifactContent;
import dev.crashlab.bundle.BundleViews.BundleSummary;
import dev.crashlab.bundle.BundleViews.BundleView;
import dev.crashlab.bundle.BundleViews.Page;
import dev.crashlab.bundle.Upload;
import dev.crashlab.parse.ArtifactFacts;
import dev.crashlab.reader.BundleFacts;
import dev.crashlab.reader.service.StoredFacts;
import dev.crashlab.ingest.BundleIngest;
import dev.crashlab.web.problem.ProblemException;
import io.smallrye.common.annotation.Blocking;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.jboss.resteasy.reactive.RestHeader;
import org.jboss.resteasy.reactive.RestPath;
import org.jboss.resteasy.reactive.RestQuery;

/** Upload, list, show, download and delete crash bundles. */
@Path("/bundles")
@Produces(MediaType.APPLICATION_JSON)
@Blocking
public class BundleResource {

    @Inject
    BundleService bundles;

    @Inject
    BundleIngest ingest;

    @Inject
    StoredFacts storedFacts;

    @Inject
    dev.crashlab.account.Ownership ownership;

    @Inject
    dev.crashlab.account.AuditLog audit;

    @Inject
    io.quarkus.security.identity.SecurityIdentity identity;

    @Inject
    dev.crashlab.crashes.service.CrashSearchService crashes;

    @Inject
    dev.crashlab.retention.RetentionService retention;

    @POST
    @Consumes(MediaType.MULTIPART_FORM_DATA)
    @RolesAllowed(Roles.REPORTER)
    @Operation(summary = "Upload a bundle as multipart parts: one archive, several loose files, or a mix")
    @org.eclipse.microprofile.openapi.annotations.responses.APIResponse(responseCode = "201", description = "the stored bundle", content = @org.eclipse.microprofile.openapi.annotations.media.Content(mediaType = "application/json", schema = @org.eclipse.microprofile.openapi.annotations.media.Schema(implementation = BundleView.class)))
    public Response uploadMultipart(InputStream body, @RestHeader("Content-Type") String contentType)
            throws BundleRejectedException, IOException {
        String boundary = MultipartStream.boundary(contentType).orElseThrow(() -> malformed(
                "the Content-Type header names no multipart boundary"));
        long limit = bundles.maxRequestBytes();
        java.nio.file.Path received = bundles.newScratchDir();
        try {
            MultipartStream.Parts parts;
            try {
                parts = MultipartStream.read(body, boundary, limit, received);
            } catch (MultipartStream.TooLargeException e) {
                throw RequestSizeLimit.tooLarge(limit);
            } catch (MultipartStream.TooManyPartsException e) {
                throw new ProblemException(413, "too-many-parts", "Too many parts", e.getMessage());
            } catch (MultipartStream.MalformedException e) {
                throw malformed(e.getMessage());
            }
            List<Upload> uploads = new ArrayList<>();
            int unnamed = 0;
            for (MultipartStream.FilePart f : parts.files()) {
                String fileName = f.fileName();
                if (fileName.isEmpty()) {
                    if (f.size() == 0) {
                        continue; // an empty <input type=file> that the browser sent anyway
                    }
                    fileName = "file-" + (++unnamed);
                }
                uploads.add(new Upload(fileName, f.file(), f.sha256()));
            }
            long incoming = 0;
            for (Upload u : uploads) {
                incoming += Files.size(u.file());
            }
            retention.checkQuota(dev.crashlab.web.auth.Callers.of(identity), incoming);
            return created(bundles.create(parts.fields().get("name"), checkNotes(parts.fields().get("notes")), uploads,
                    ownedWithinQuota()));
        } finally {
            bundles.discard(received);
        }
    }

    private static ProblemException malformed(String detail) {
        return new ProblemException(400, "bad-multipart", "Malformed multipart body",
                detail + "; send multipart/form-data as browsers and `curl -F file=@bundle.zip` do");
    }

    @POST
    @Consumes({"application/zip", "application/x-zip-compressed", "application/gzip", "application/x-gzip",
               "application/x-tar", "application/x-gtar", "application/x-compressed-tar", "application/octet-stream"})
    @RolesAllowed(Roles.REPORTER)
    @Operation(summary = "Upload a bundle as one archive in the request body (zip, tar, tar.gz or gz)")
    @org.eclipse.microprofile.openapi.annotations.responses.APIResponse(responseCode = "201", description = "the stored bundle", content = @org.eclipse.microprofile.openapi.annotations.media.Content(mediaType = "application/json", schema = @org.eclipse.microprofile.openapi.annotations.media.Schema(implementation = BundleView.class)))
    public Response uploadArchive(InputStream body, @RestQuery String name, @RestQuery String notes,
            @RestHeader("Content-Disposition") String disposition) throws BundleRejectedException, IOException {
        java.nio.file.Path received = bundles.newScratchFile(".body");
        try {
            String sha256 = receive(body, received, bundles.maxRequestBytes());
            retention.checkQuota(dev.crashlab.web.auth.Callers.of(identity), Files.size(received));
            if (!BundleUnpacker.isArchive(received)) {
                throw new BundleRejectedException(BundleRejectedException.Kind.NOT_AN_ARCHIVE,
                        "the request body is not a zip, tar or gzip archive; send loose files as multipart/form-data parts named `file`");
            }
            String fileName = ContentDisposition.fileName(disposition).orElse(name != null && !name.isBlank() ? name : "bundle");
            return created(bundles.create(name, checkNotes(notes), List.of(new Upload(fileName, received, sha256)),
                    ownedWithinQuota()));
        } finally {
            Files.deleteIfExists(received);
        }
    }

    /** Writes the body to {@code target}, hashing it on the way; returns its SHA-256. */
    private static String receive(InputStream body, java.nio.file.Path target, long limit) throws IOException {
        byte[] buffer = new byte[1 << 16];
        long total = 0;
        java.security.MessageDigest digest = BlobStore.sha256();
        try (OutputStream out = new java.security.DigestOutputStream(Files.newOutputStream(target), digest)) {
            for (int n; (n = body.read(buffer)) != -1; ) {
                total += n;
                if (total > limit) {
                    throw RequestSizeLimit.tooLarge(limit);
                }
                out.write(buffer, 0, n);
            }
        }
        return java.util.HexFormat.of().formatHex(digest.digest());
    }

    private static String checkNotes(String notes) {
        if (notes != null && notes.length() > BundleService.MAX_NOTES) {
            throw new ProblemException(400, "notes-too-long", "Notes too long", "the notes are " + notes.length()
                    + " characters long; at most " + BundleService.MAX_NOTES + " fit: shorten them, or upload them as a file");
        }
        return notes;
    }

    /**
     * Run in the transaction that stores a new bundle: the quota check that counts (the one before unpacking only
     * refuses early) and the owner, so a bundle is never stored without its owner or past its owner's quota.
     */
    private BundleService.CommitCheck ownedWithinQuota() {
        dev.crashlab.account.Caller who = dev.crashlab.web.auth.Callers.of(identity);
        return (id, size) -> {
            retention.checkQuotaInCommit(who, size);
            ownership.recordUpload(id, who);
        };
    }

    private Response created(BundleView view) {
        dev.crashlab.account.Caller who = dev.crashlab.web.auth.Callers.of(identity);
        audit.record(who, "bundle.upload", "bundle " + view.id(), view.name());
        ingest.submit(view.id()); // stored safely; read and diagnosed in the background (status PROCESSING until then)
        return Response.created(URI.create("/api/bundles/" + view.id())).entity(withSameFiles(view)).build();
    }

    @GET
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "List bundles, newest first: {\"items\":[{\"id\",\"name\",\"displayName\",\"uploadedAt\",\"size\","
            + "\"sha256\",\"status\" (PROCESSING, READY or FAILED),\"artifactCount\",\"likelyCause\":{\"id\",\"title\",\"confirmed\"},"
            + "\"group\",\"gpu\",\"framework\",\"pinned\"}],\"page\",\"size\",\"total\"}")
    public Page<BundleRows.BundleRow> list(@RestQuery @DefaultValue("0") String page, @RestQuery @DefaultValue("20") String size) {
        Page<BundleSummary> p = bundles.list(Paging.number("page", page, 0, Paging.MAX_PAGE), Paging.number("size", size, 1, 100));
        List<Long> ids = p.items().stream().map(BundleSummary::id).toList();
        Map<Long, dev.crashlab.crashes.service.CrashSearchService.RowFacts> facts = crashes.rowFacts(ids);
        java.util.Set<Long> pinned = bundles.pinned(ids);
        return new Page<>(p.items().stream().map(b -> BundleRows.of(b, facts.get(b.id()), pinned.contains(b.id()))).toList(),
                p.page(), p.size(), p.total());
    }

    @GET
    @Path("/{id}")
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "Show a bundle and its artifacts; sameFilesAs names the earliest bundle with exactly the same files, "
            + "displayName is the name the list shows")
    public BundleView get(@RestPath long id) {
        BundleView view = withSameFiles(bundles.find(id).orElseThrow(() -> ProblemException.notFound("no bundle " + id)));
        // the same name as the list's row, so that a collector's crash-bundle-<date>.zip reads alike in both
        return view.withDisplayName(BundleRows.displayName(view.name(), view.artifacts().size(), crashes.rowFacts(List.of(id)).get(id)));
    }

    // an upload of files already uploaded is stored all the same; its view names the first bundle that holds them
    private BundleView withSameFiles(BundleView view) {
        return bundles.sameFilesAs(view.id())
                .map(s -> view.withSameFilesAs(new dev.crashlab.bundle.BundleViews.SameFiles(s.bundleId(), s.name(), s.uploadedAt(),
                        ownership.owner(s.bundleId()).orElse(null))))
                .orElse(view);
    }

    /**
     * Who uploaded a bundle and whether the caller may delete it (the UI shows Delete only then).
     *
     * @param uploadedBy a user name, token:&lt;name&gt;, or null for bundles from before accounts
     * @param mayDelete whether the caller's roles allow deleting this bundle
     */
    public record Ownership(@org.eclipse.microprofile.openapi.annotations.media.Schema(nullable = true) String uploadedBy, boolean mayDelete) {}

    @GET
    @Path("/{id}/ownership")
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "Who uploaded a bundle, and whether you may delete it (triagers any, reporters their own)")
    public Ownership ownership(@RestPath long id) {
        bundles.find(id).orElseThrow(() -> ProblemException.notFound("no bundle " + id));
        dev.crashlab.account.Caller who = dev.crashlab.web.auth.Callers.of(identity);
        return new Ownership(ownership.owner(id).orElse(null), ownership.mayDelete(id, who));
    }

    @GET
    @Path("/{id}/facts")
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "The facts read from every artifact of a bundle, as stored by its latest finished reading; answered "
            + "at once with the reading's status and progress (409 bundle-processing while nothing is stored yet): "
            + "{\"bundleId\", \"status\", \"artifactsRead\", \"artifactCount\", \"artifacts\":[{\"path\",\"type\",\"facts\",\"problems\"}], \"budgetNotes\"}")
    public FactsView facts(@RestPath long id) {
        BundleView bundle = bundles.find(id).orElseThrow(() -> ProblemException.notFound("no bundle " + id));
        BundleFacts read = storedFacts.find(id, false).orElseThrow(() -> readingPending(bundle));
        List<ArtifactFacts> artifacts = read.artifacts().stream()
                .map(a -> new ArtifactFacts(a.path(), a.type(), a.facts(), a.problemMessages()))
                .toList();
        return new FactsView(id, bundle.status(), bundle.progress().artifactsRead(), bundle.progress().artifacts(), artifacts,
                read.budgetHits().stream().map(h -> h.message()).toList());
    }

    /**
     * A bundle's stored facts, per artifact, with the reading's status and progress.
     *
     * @param budgetNotes the per-bundle budgets the reading reached, in words
     */
    public record FactsView(long bundleId, dev.crashlab.bundle.BundleStatus status, int artifactsRead, int artifactCount,
                            List<ArtifactFacts> artifacts, List<String> budgetNotes) {}

    /** A bundle with no reading stored: still being read (with its progress), or its reading failed; said at once. */
    private static ProblemException readingPending(BundleView b) {
        if (b.status() == dev.crashlab.bundle.BundleStatus.FAILED) {
            return new ProblemException(409, "bundle-read-failed", "Reading the bundle failed", b.readError()
                    + ". Read it again from its page (POST /api/bundles/" + b.id() + "/read) once the cause is fixed");
        }
        return new ProblemException(409, "bundle-processing", "Bundle still being read", "CrashLab is still reading bundle "
                + b.id() + " (" + b.progress().artifactsRead() + " of " + b.progress().artifacts()
                + " files so far); its page shows the result when it is done");
    }

    @POST
    @Path("/{id}/read")
    @RolesAllowed({Roles.REPORTER, Roles.TRIAGER})
    @Operation(summary = "Read a bundle again in the background (after reading it failed, or to refresh it; triagers any, "
            + "reporters their own); answers 202 with the bundle, status PROCESSING")
    @org.eclipse.microprofile.openapi.annotations.responses.APIResponse(responseCode = "202", description = "the bundle, status PROCESSING", content = @org.eclipse.microprofile.openapi.annotations.media.Content(mediaType = "application/json", schema = @org.eclipse.microprofile.openapi.annotations.media.Schema(implementation = BundleView.class)))
    public Response readAgain(@RestPath long id) {
        dev.crashlab.account.Caller who = dev.crashlab.web.auth.Callers.of(identity);
        bundles.find(id).orElseThrow(() -> ProblemException.notFound("no bundle " + id));
        ownership.checkMayChange(id, who, "read again");
        BundleView view = ingest.readAgain(id);
        audit.record(who, "bundle.read-again", "bundle " + id, view.name());
        return Response.accepted(view).build();
    }

    @GET
    @Path("/{id}/artifacts/{artifactId}/content")
    @Produces(MediaType.WILDCARD)
    @RolesAllowed(Roles.VIEWER)
    @Operation(summary = "Download one artifact's bytes (text inline, binary as an attachment)")
    public Response content(@RestPath long id, @RestPath long artifactId) throws IOException {
        ArtifactContent a = bundles.artifact(id, artifactId)
                .orElseThrow(() -> ProblemException.notFound("bundle " + id + " has no artifact " + artifactId));
        InputStream in = bundles.blobs().open(a.sha256());
        ArtifactMediaType media = ArtifactMediaType.of(a.type(), bundles.blobs(), a.sha256());
        String fileName = a.path().substring(a.path().lastIndexOf('/') + 1);
        return Response.ok(in, media.mediaType())
                .header("Content-Length", a.size())
                .header("Content-Disposition", ContentDisposition.header(media.inline() ? "inline" : "attachment", fileName))
                .header("X-Content-Type-Options", "nosniff")
                .header("Content-Security-Policy", HttpGuards.CONTENT_CSP)
                .build();
    }

    @DELETE
    @Path("/{id}")
    @RolesAllowed({Roles.REPORTER, Roles.TRIAGER})
    @Operation(summary = "Delete a bundle, and the stored files no other bundle uses")
    public Response delete(@RestPath long id) throws IOException {
        dev.crashlab.account.Caller who = dev.crashlab.web.auth.Callers.of(identity);
        BundleView doomed = bundles.find(id).orElseThrow(() -> ProblemException.notFound("no bundle " + id));
        ownership.checkMayDelete(id, who);
        if (!bundles.delete(id)) {
            throw ProblemException.notFound("no bundle " + id);
        }
        crashes.removed(id);
        audit.record(who, "bundle.delete", "bundle " + id, doomed.name());
        return Response.noContent().build();
    }

    /** Whether a bundle is pinned, after a pin or unpin. */
    public record PinState(long bundleId, boolean pinned) {}

    @PUT
    @Path("/{id}/pin")
    @RolesAllowed(Roles.TRIAGER)
    @Operation(summary = "Pin a bundle: retention keeps it whatever its age (audited as bundle.pin): {\"bundleId\",\"pinned\":true}")
    public PinState pin(@RestPath long id) {
        return setPinned(id, true);
    }

    @DELETE
    @Path("/{id}/pin")
    @RolesAllowed(Roles.TRIAGER)
    @Operation(summary = "Unpin a bundle: retention may delete it once it is old enough and has no confirmed cause (audited as"
            + " bundle.unpin): {\"bundleId\",\"pinned\":false}")
    public PinState unpin(@RestPath long id) {
        return setPinned(id, false);
    }

    private PinState setPinned(long id, boolean pinned) {
        if (!retention.pin(id, pinned, dev.crashlab.web.auth.Callers.of(identity))) {
            throw ProblemException.notFound("no bundle " + id);
        }
        return new PinState(id, pinned);
    }
}
