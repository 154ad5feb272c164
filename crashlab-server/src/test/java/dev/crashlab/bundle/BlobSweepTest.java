package dev.crashlab.bundle;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** What a crash leaves in the blob store is swept away; what bundles use stays. */
@QuarkusTest
@Tag("persistence")
class BlobSweepTest {

    @Inject
    BundleService service;
    @Inject
    BlobClaims claims;

    @Test
    void removesUnfinishedWritesAndUnreferencedBlobsOnly() throws Exception {
        byte[] kept = ("kept " + System.nanoTime()).getBytes(StandardCharsets.UTF_8);
        int id = given().multiPart("file", "kept.log", kept, "text/plain").post("/api/bundles")
                .then().statusCode(201).extract().path("id");
        String keptSha = given().get("/api/bundles/" + id).then().extract().path("artifacts[0].sha256");

        // as if the process died between moving a blob in and committing its rows, and mid-write
        String orphan = service.blobs().put(new ByteArrayInputStream(("orphan " + System.nanoTime()).getBytes(StandardCharsets.UTF_8)));
        // older than the newest bundle less the grace period (1h): an old orphan; a fresh one may be an upload in flight
        Path blobs = org.eclipse.microprofile.config.ConfigProvider.getConfig().getValue("crashlab.data-dir", Path.class)
                .toAbsolutePath().normalize().resolve("blobs");
        Files.setLastModifiedTime(new LocalBlobStore(blobs).pathOf(orphan),
                java.nio.file.attribute.FileTime.from(java.time.Instant.now().minus(java.time.Duration.ofHours(3))));
        // an old blob an upload in flight has just claimed (it found it stored and will commit rows naming it)
        String claimedOld = service.blobs().put(new ByteArrayInputStream(("claimed " + System.nanoTime()).getBytes(StandardCharsets.UTF_8)));
        Files.setLastModifiedTime(new LocalBlobStore(blobs).pathOf(claimedOld),
                java.nio.file.attribute.FileTime.from(java.time.Instant.now().minus(java.time.Duration.ofHours(3))));
        String upload = claims.claim(java.util.List.of(claimedOld));
        String recent = service.blobs().put(new ByteArrayInputStream(("recent " + System.nanoTime()).getBytes(StandardCharsets.UTF_8)));
        Path halfWritten = Files.writeString(org.eclipse.microprofile.config.ConfigProvider.getConfig().getValue("crashlab.data-dir", Path.class)
                .toAbsolutePath().normalize().resolve("blobs/.incoming/0000-dead.tmp"), "half");

        BundleService.SweepResult result = service.sweep(true);

        assertThat(result.orphanBlobs()).isGreaterThanOrEqualTo(1);
        assertThat(result.incomingFiles()).isGreaterThanOrEqualTo(1);
        assertThat(service.blobs().contains(orphan)).isFalse();
        assertThat(service.blobs().contains(recent)).as("within the grace period").isTrue();
        assertThat(service.blobs().contains(claimedOld)).as("claimed by an upload in flight").isTrue();
        claims.release(upload);
        assertThat(claims.deleteIfUnused(claimedOld)).as("once the claim is gone and no row names it").isTrue();
        assertThat(claims.deleteIfUnused(keptSha)).as("a row names it").isFalse();
        assertThat(halfWritten).doesNotExist();
        assertThat(service.blobs().contains(keptSha)).isTrue();
        given().get("/api/bundles/" + id + "/artifacts/" + given().get("/api/bundles/" + id).then().extract().<Integer>path("artifacts[0].id") + "/content")
                .then().statusCode(200);
    }

    /**
     * An upload of many files claims every hash, in statements of {@link BlobClaims#ROWS_PER_INSERT} rows (a zip of
     * 9,000 files made 9,000 round trips in one transaction): a claim past the first statements protects its blob like
     * the first does, and the release drops them all.
     */
    @Test
    void aClaimOfManyHashesIsWhole() throws Exception {
        int n = 2 * BlobClaims.ROWS_PER_INSERT + 7;
        java.util.List<String> hashes = new java.util.ArrayList<>();
        for (int i = 0; i < n - 1; i++) {
            var random = java.util.concurrent.ThreadLocalRandom.current(); // hashes of files never stored, on every stripe
            hashes.add(String.format(java.util.Locale.ROOT, "%016x%016x%016x%016x", random.nextLong(), random.nextLong(),
                    random.nextLong(), (long) i));
        }
        String stored = service.blobs().put(new ByteArrayInputStream(("many " + System.nanoTime()).getBytes(StandardCharsets.UTF_8)));
        hashes.add(stored);
        hashes.add(hashes.get(0)); // the same file twice in one upload: one claim
        String upload = claims.claim(hashes);
        long rows = io.quarkus.narayana.jta.QuarkusTransaction.requiringNew().call(() -> ((Number) Bundle.getEntityManager()
                .createNativeQuery("select count(*) from blob_claim where upload = ?1").setParameter(1, upload)
                .getSingleResult()).longValue());
        assertThat(rows).as("one claim row per distinct hash").isEqualTo(n);
        assertThat(claims.deleteIfUnused(stored)).as("claimed, whichever statement wrote its row").isFalse();
        assertThat(service.blobs().contains(stored)).isTrue();
        claims.release(upload);
        long left = io.quarkus.narayana.jta.QuarkusTransaction.requiringNew().call(() -> ((Number) Bundle.getEntityManager()
                .createNativeQuery("select count(*) from blob_claim where upload = ?1").setParameter(1, upload)
                .getSingleResult()).longValue());
        assertThat(left).isZero();
        assertThat(claims.deleteIfUnused(stored)).as("released").isTrue();
    }
}
