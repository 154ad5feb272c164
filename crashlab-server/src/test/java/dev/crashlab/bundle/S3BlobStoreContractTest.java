package dev.crashlab.bundle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.crashlab.testing.S3ProxyServer;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The blob store contract on a real S3 server (S3Proxy, filesystem backend), each test in a bucket and prefix of
 * its own; plus what only the object store has: the key layout, multipart uploads and errors that say where.
 */
class S3BlobStoreContractTest extends BlobStoreContract {

    static S3ProxyServer server;
    static final AtomicInteger BUCKETS = new AtomicInteger();
    final List<S3BlobStore> opened = new ArrayList<>();

    @BeforeAll
    static void startServer() throws Exception {
        server = S3ProxyServer.start();
    }

    @AfterAll
    static void stopServer() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @AfterEach
    void closeStores() {
        opened.forEach(S3BlobStore::close);
    }

    S3BlobStore open(String address) throws IOException {
        S3BlobStore s = new S3BlobStore(new S3BlobStore.Settings(S3BlobStore.parse(address), server.endpoint(), "us-east-1",
                S3ProxyServer.KEY, S3ProxyServer.SECRET, true, S3BlobStore.MIN_PART, Files.createTempDirectory(tmp, "spool")));
        opened.add(s);
        return s;
    }

    @Override
    BlobStore store() throws Exception {
        String bucket = "contract-" + BUCKETS.incrementAndGet();
        server.createBucket(bucket);
        S3BlobStore s = open("s3://" + bucket + "/crashlab/blobs");
        s.check();
        return s;
    }

    @Test
    void blobsLiveUnderThePrefixShardedByHash() throws Exception {
        S3BlobStore store = (S3BlobStore) store();
        byte[] bytes = random(64, 7);
        String sha = sha(bytes);
        store.putFile(file("k", bytes), sha);
        try (S3Client c = server.client()) {
            List<String> keys = c.listObjectsV2(b -> b.bucket(store.location().bucket())).contents().stream().map(o -> o.key())
                    .filter(k -> !k.endsWith("/")).toList(); // the filesystem backend lists its folders too
            assertThat(keys).containsExactly("crashlab/blobs/" + sha.substring(0, 2) + "/" + sha.substring(2, 4) + "/" + sha);
        }
    }

    @Test
    void twoStoresOnOneBucketSeeEachOthersBlobs() throws Exception {
        S3BlobStore a = (S3BlobStore) store();
        S3BlobStore b = open(a.location().toString());
        byte[] bytes = random(5000, 8);
        String sha = sha(bytes);
        assertThat(a.putFile(file("a", bytes), sha)).isTrue();
        assertThat(b.contains(sha)).isTrue();
        assertThat(b.putFile(file("b", bytes), sha)).as("already there: not stored again").isFalse();
        assertThat(readSha(b, sha)).isEqualTo(sha);
    }

    @Test
    void addressesAreReadOrRefusedWithAReason() {
        assertThat(S3BlobStore.parse("s3://my-bucket/crash/lab")).isEqualTo(new S3BlobStore.Location("my-bucket", "crash/lab/"));
        assertThat(S3BlobStore.parse("s3://my-bucket")).isEqualTo(new S3BlobStore.Location("my-bucket", ""));
        assertThat(S3BlobStore.parse("s3://my-bucket/")).isEqualTo(new S3BlobStore.Location("my-bucket", ""));
        assertThatThrownBy(() -> S3BlobStore.parse("https://my-bucket/x")).hasMessageContaining("s3://bucket/prefix");
        assertThatThrownBy(() -> S3BlobStore.parse("s3://My_Bucket/x")).hasMessageContaining("not a bucket name");
    }

    @Test
    void aMissingBucketOrWrongKeyIsAClearErrorAtCheck() throws Exception {
        S3BlobStore missing = open("s3://no-such-bucket-here/x");
        assertThatThrownBy(missing::check).isInstanceOf(IOException.class).hasMessageContaining("s3://no-such-bucket-here/x")
                .hasMessageContaining("404");
        String bucket = "contract-" + BUCKETS.incrementAndGet();
        server.createBucket(bucket);
        S3BlobStore wrongKey = new S3BlobStore(new S3BlobStore.Settings(S3BlobStore.parse("s3://" + bucket), server.endpoint(),
                "us-east-1", S3ProxyServer.KEY, "not-the-secret", true, S3BlobStore.MIN_PART, Files.createTempDirectory(tmp, "s")));
        opened.add(wrongKey);
        assertThatThrownBy(wrongKey::check).isInstanceOf(IOException.class).hasMessageContaining("403");
    }

    @Test
    void aPartSizeBelowS3sMinimumIsRefused() {
        assertThatThrownBy(() -> new S3BlobStore(new S3BlobStore.Settings(S3BlobStore.parse("s3://abc"), server.endpoint(),
                "us-east-1", "k", "s", true, 1024 * 1024, tmp))).hasMessageContaining("5 MiB");
    }
}
