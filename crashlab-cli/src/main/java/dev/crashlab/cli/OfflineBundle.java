package dev.crashlab.cli;

import dev.crashlab.unpack.BundleRejectedException;
import dev.crashlab.unpack.BundleUnpacker;
import dev.crashlab.unpack.StagedFile;
import dev.crashlab.unpack.UnpackLimits;
import dev.crashlab.diagnose.DiagnosisInput;
import dev.crashlab.reader.BundleFacts;
import dev.crashlab.reader.BundleReader;
import dev.crashlab.reader.ReadBudget;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * Reads files, folders and archives into one bundle's facts and text lines, as an upload would be, without
 * a server: what {@code diagnose} and {@code eval} feed the engine.
 */
public final class OfflineBundle {

    private OfflineBundle() {}

    /** One file of the bundle: its path inside the bundle and where its bytes are. */
    record Item(String path, Path file) {}

    /**
     * Reads the paths as one bundle.
     *
     * @param skip bundle-relative paths to leave out (e.g. an eval case's {@code meta.json})
     */
    public static DiagnosisInput read(List<Path> paths, Predicate<String> skip) throws IOException, BundleRejectedException {
        return readFacts(paths, skip).diagnosisInput();
    }

    /**
     * Reads the paths as one bundle into what it says: one pass over each file (sniff, parsers, text window), as
     * the server reads an upload.
     *
     * @param skip bundle-relative paths to leave out (e.g. an eval case's {@code meta.json})
     */
    public static BundleFacts readFacts(List<Path> paths, Predicate<String> skip) throws IOException, BundleRejectedException {
        return readFacts(paths, skip, () -> {});
    }

    /** As {@link #readFacts(List, Predicate)}, running {@code unpacked} between unpacking and reading (for timing). */
    public static BundleFacts readFacts(List<Path> paths, Predicate<String> skip, Runnable unpacked)
            throws IOException, BundleRejectedException {
        Path staging = Files.createTempDirectory("crashlab-bundle-");
        try (BundleUnpacker unpacker = new BundleUnpacker(UnpackLimits.defaults(), staging.resolve("files"))) {
            List<BundleReader.Item> items = new ArrayList<>();
            for (Item i : items(paths, unpacker)) {
                if (!skip.test(i.path())) {
                    items.add(new BundleReader.Item(i.path(), null, Files.size(i.file()), () -> Files.newInputStream(i.file())));
                }
            }
            unpacked.run();
            return new BundleReader(ReadBudget.defaults()).read(items);
        } finally {
            try (Stream<Path> left = Files.walk(staging)) {
                left.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /**
     * Every file of the bundle {@code paths} make: loose files, folders (walked, sorted) and archives, unpacked by
     * {@code unpacker} under its limits, as an upload would be. The facts and repro commands read bundles so too.
     */
    static List<Item> items(List<Path> paths, BundleUnpacker unpacker) throws IOException, BundleRejectedException {
        List<Item> items = new ArrayList<>();
        boolean single = paths.size() == 1;
        for (Path p : paths) {
            if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                addFolder(p, unpacker, items);
            } else {
                unpacker.add(p.getFileName().toString(), p, single);
            }
        }
        for (StagedFile s : unpacker.files()) {
            items.add(new Item(s.path(), s.file()));
        }
        return items;
    }

    private static void addFolder(Path root, BundleUnpacker unpacker, List<Item> items) throws IOException, BundleRejectedException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(root)) {
            files = walk.filter(f -> Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)).sorted().toList();
        }
        for (Path f : files) {
            String rel = root.relativize(f).toString().replace('\\', '/');
            if (BundleUnpacker.isArchive(f)) {
                unpacker.add(rel, f, false);
            } else {
                items.add(new Item(rel, f));
            }
        }
    }
}
