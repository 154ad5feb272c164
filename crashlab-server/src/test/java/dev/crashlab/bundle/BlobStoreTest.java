package dev.crashlab.bundle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BlobStoreTest {

    @TempDir
    Path dir;

    @Test
    void storesUnderShardedHashAndOnlyOnce() throws Exception {
        LocalBlobStore store = new LocalBlobStore(dir.resolve("blobs"));
        byte[] bytes = "hello, blob\n".getBytes(StandardCharsets.UTF_8);
        String sha = sha256(bytes);

        assertThat(store.put(new ByteArrayInputStream(bytes))).isEqualTo(sha);
        assertThat(store.pathOf(sha)).isEqualTo(dir.resolve("blobs").resolve(sha.substring(0, 2))
                .resolve(sha.substring(2, 4)).resolve(sha).toAbsolutePath());
        assertThat(store.pathOf(sha)).hasBinaryContent(bytes);

        Path staged = Files.write(dir.resolve("staged"), bytes);
        assertThat(store.putFile(staged, sha)).as("second copy is a duplicate").isFalse();
        assertThat(staged).as("duplicate source is consumed").doesNotExist();
        assertThat(store.list()).containsExactly(sha);
        try (InputStream in = store.open(sha)) {
            assertThat(in.readAllBytes()).isEqualTo(bytes);
        }
    }

    @Test
    void blobsAndTheirFoldersAreForTheOwnerOnly() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(dir.getFileSystem().supportedFileAttributeViews().contains("posix"),
                "no POSIX permissions on this file system");
        LocalBlobStore store = new LocalBlobStore(dir.resolve("blobs"));
        java.nio.file.Path staged = java.nio.file.Files.writeString(dir.resolve("staged"), "secret log\n");
        // as a umask of 022 leaves it: world-readable
        java.nio.file.Files.setPosixFilePermissions(staged, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        String sha = "5f0d7c3bb1d8a3a7e0f65d0b4b1e8b5b2f6c0a1d2e3f405162738495a6b7c8d9";
        store.putFile(staged, sha);
        String put = store.put(new java.io.ByteArrayInputStream("other\n".getBytes(StandardCharsets.UTF_8)));
        for (String s : java.util.List.of(sha, put)) {
            java.nio.file.Path blob = store.pathOf(s);
            org.assertj.core.api.Assertions.assertThat(java.nio.file.attribute.PosixFilePermissions.toString(
                    java.nio.file.Files.getPosixFilePermissions(blob))).isEqualTo("rw-------");
            for (java.nio.file.Path d = blob.getParent(); !d.equals(store.root().getParent()); d = d.getParent()) {
                org.assertj.core.api.Assertions.assertThat(java.nio.file.attribute.PosixFilePermissions.toString(
                        java.nio.file.Files.getPosixFilePermissions(d))).as(d.toString()).isEqualTo("rwx------");
            }
        }
    }

    @Test
    void movesANewStagedFileInAndDeletesItWithItsEmptyFolders() throws Exception {
        LocalBlobStore store = new LocalBlobStore(dir.resolve("blobs"));
        byte[] bytes = new byte[100_000];
        bytes[5] = 1;
        String sha = sha256(bytes);
        Path staged = Files.write(dir.resolve("staged"), bytes);

        assertThat(store.putFile(staged, sha)).isTrue();
        assertThat(staged).doesNotExist();
        assertThat(store.contains(sha)).isTrue();

        assertThat(store.delete(sha)).isTrue();
        assertThat(store.contains(sha)).isFalse();
        assertThat(store.pathOf(sha).getParent()).doesNotExist();
        assertThat(store.delete(sha)).isFalse();
        assertThat(store.list()).isEmpty();
    }

    @Test
    void aWriteThatFailsHalfwayLeavesNoBlob() throws Exception {
        LocalBlobStore store = new LocalBlobStore(dir.resolve("blobs"));
        InputStream failing = new InputStream() {
            int n;

            @Override
            public int read() throws IOException {
                if (n++ > 10_000) {
                    throw new IOException("connection reset by peer");
                }
                return 'x';
            }
        };
        assertThatThrownBy(() -> store.put(failing)).isInstanceOf(IOException.class);
        assertThat(store.list()).isEmpty();
        try (var incoming = Files.list(store.root().resolve(".incoming"))) {
            assertThat(incoming).isEmpty();
        }
    }

    @Test
    void refusesNamesThatAreNotHashes() {
        LocalBlobStore store = new LocalBlobStore(dir.resolve("blobs"));
        assertThatThrownBy(() -> store.pathOf("../../etc/passwd")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.pathOf("A".repeat(64))).isInstanceOf(IllegalArgumentException.class);
    }

    static String sha256(byte[] bytes) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    }
}
