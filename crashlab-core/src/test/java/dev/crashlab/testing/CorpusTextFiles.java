package dev.crashlab.testing;

import dev.crashlab.sniff.ArtifactType;
import dev.crashlab.sniff.ArtifactSniffer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Every text file of {@code ../shared/corpus} and {@code ../shared/corpus-fresh} (bundles, event text, environment
 * listings, nvidia-smi dumps, model configs), read in place: what the paste readers' "never joins a real line" tests
 * walk. Binary files and {@code .evtx} are left out.
 */
public final class CorpusTextFiles {

    /** The shared folder beside the repository; the callers skip their test where its corpus is absent. */
    public static final Path SHARED = Path.of("../shared");

    private static final List<String> FOLDERS = List.of("corpus/crash-bundles", "corpus-fresh/crash-bundles",
            "corpus/eventlog-text", "corpus/env-listings", "corpus/nvidia-smi", "corpus/model-configs");

    private CorpusTextFiles() {}

    /** Whether {@code ../shared/corpus} is there. */
    public static boolean present() {
        return Files.isDirectory(SHARED.resolve("corpus"));
    }

    /** The text files, in a stable order. */
    public static List<Path> list() throws IOException {
        ArtifactSniffer sniffer = new ArtifactSniffer();
        List<Path> out = new ArrayList<>();
        for (String dir : FOLDERS) {
            Path root = SHARED.resolve(dir);
            if (!Files.isDirectory(root)) {
                continue;
            }
            List<Path> files;
            try (Stream<Path> s = Files.walk(root)) {
                files = s.filter(Files::isRegularFile).sorted().toList();
            }
            for (Path f : files) {
                if (!f.toString().endsWith(".evtx") && sniffer.sniff(f.getFileName().toString(), f) != ArtifactType.BINARY) {
                    out.add(f);
                }
            }
        }
        return out;
    }

    /** {@code f} named from the shared folder with forward slashes, plus {@code :row}: how the tests list a join. */
    public static String where(Path f, long row) {
        return SHARED.relativize(f).toString().replace('\\', '/') + ":" + row;
    }
}
