package dev.crashlab.cli;

import dev.crashlab.bundle.BundleRejectedException;
import dev.crashlab.bundle.BundleUnpacker;
import dev.crashlab.bundle.StagedFile;
import dev.crashlab.bundle.UnpackLimits;
import dev.crashlab.diagnose.DiagnosisInput;
import dev.crashlab.diagnose.TextLine;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.Facts;
import dev.crashlab.parse.ArtifactFacts;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.sniff.ArtifactSniffer;
import dev.crashlab.sniff.ArtifactType;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * Reads files, folders and archives into one bundle's facts and text lines, as an upload would be, without
 * a server: what {@code diagnose} and {@code eval} feed the engine.
 */
final class OfflineBundle {

    /** Lines kept from the start of each text artifact. */
    static final int HEAD_LINES = 2_000;
    /** Lines kept from the end of each text artifact (where a crash's last words are). */
    static final int TAIL_LINES = 20_000;
    /** The longest line kept, in characters. */
    static final int MAX_LINE = 4_000;

    private OfflineBundle() {}

    /** One file of the bundle. */
    private record Item(String path, Path file) {}

    /**
     * Reads the paths as one bundle.
     *
     * @param skip bundle-relative paths to leave out (e.g. an eval case's {@code meta.json})
     */
    static DiagnosisInput read(List<Path> paths, Predicate<String> skip) throws IOException, BundleRejectedException {
        Path staging = Files.createTempDirectory("crashlab-bundle-");
        ArtifactSniffer sniffer = new ArtifactSniffer();
        try (BundleUnpacker unpacker = new BundleUnpacker(UnpackLimits.defaults(), staging.resolve("files"))) {
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
            List<Fact> facts = new ArrayList<>();
            List<TextLine> lines = new ArrayList<>();
            for (Item i : items) {
                if (skip.test(i.path())) {
                    continue;
                }
                ParseInput input = new ParseInput(i.path(), sniffer.sniff(i.path(), i.file()), i.file());
                facts.addAll(ArtifactFacts.of(input).facts());
                if (input.type() != ArtifactType.BINARY && input.type() != ArtifactType.EVTX) {
                    readLines(input, lines);
                }
            }
            return new DiagnosisInput(Facts.dedupe(facts), lines);
        } finally {
            try (Stream<Path> left = Files.walk(staging)) {
                left.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    // The head and the tail of a text artifact: errors sit at the end, versions at the start.
    private static void readLines(ParseInput input, List<TextLine> out) {
        List<TextLine> head = new ArrayList<>();
        Deque<TextLine> tail = new ArrayDeque<>();
        try (BufferedReader r = input.openText()) {
            String line;
            long n = 0;
            while ((line = r.readLine()) != null) {
                n++;
                TextLine t = new TextLine(input.path(), n, line.length() > MAX_LINE ? line.substring(0, MAX_LINE) : line);
                if (n <= HEAD_LINES) {
                    head.add(t);
                } else {
                    tail.addLast(t);
                    if (tail.size() > TAIL_LINES) {
                        tail.removeFirst();
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            // an unreadable file contributes its facts (or its parse problem) only
        }
        out.addAll(head);
        out.addAll(tail);
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
