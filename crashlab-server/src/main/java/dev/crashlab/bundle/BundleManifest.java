package dev.crashlab.bundle;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;

/**
 * Computes the identity hash of a bundle uploaded as several loose files.
 *
 * <p>NOTE: a bundle of one file is identified by that file's SHA-256; several files by the SHA-256 of
 * the lines {@code "<sha256>  <name>\n"} in upload order (the format of {@code sha256sum}), so the
 * same files sent again give the same hash.
 */
public final class BundleManifest {

    private BundleManifest() {}

    /** Returns the bundle hash for files with these names and hashes, in upload order. */
    public static String sha256(List<String> names, List<String> hashes) {
        if (names.size() == 1) {
            return hashes.getFirst();
        }
        MessageDigest digest = BlobStore.sha256();
        for (int i = 0; i < names.size(); i++) {
            digest.update((hashes.get(i) + "  " + names.get(i) + "\n").getBytes(StandardCharsets.UTF_8));
        }
        return HexFormat.of().formatHex(digest.digest());
    }
}
