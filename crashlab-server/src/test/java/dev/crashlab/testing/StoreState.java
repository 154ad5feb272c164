package dev.crashlab.testing;

import dev.crashlab.bundle.Artifact;
import dev.crashlab.bundle.Bundle;
import dev.crashlab.bundle.BundleService;
import io.quarkus.narayana.jta.QuarkusTransaction;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * A snapshot of everything an upload can leave behind: rows, blobs, and scratch files.
 *
 * <p>Tests compare snapshots before and after a refused upload; the database is shared by the whole
 * test run, so absolute counts would say nothing.
 */
public record StoreState(long bundles, long artifacts, Set<String> blobs, List<String> scratch) {

    /** Reads the current state through the service's own blob store and the database. */
    public static StoreState of(BundleService service) {
        long[] counts = QuarkusTransaction.requiringNew().call(() -> new long[] {Bundle.count(), Artifact.count()});
        try {
            Path tmp = org.eclipse.microprofile.config.ConfigProvider.getConfig().getValue("crashlab.data-dir", Path.class)
                    .toAbsolutePath().normalize().resolve("tmp");
            List<String> scratch;
            try (Stream<Path> s = Files.exists(tmp) ? Files.list(tmp) : Stream.empty()) {
                scratch = s.map(p -> p.getFileName().toString())
                        .filter(n -> n.startsWith("staging-") || n.startsWith("receive-"))
                        .sorted()
                        .toList();
            }
            return new StoreState(counts[0], counts[1], new TreeSet<>(service.blobs().list()), scratch);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
