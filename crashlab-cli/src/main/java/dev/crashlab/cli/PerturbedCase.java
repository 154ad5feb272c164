package dev.crashlab.cli;

import dev.crashlab.diagnose.DiagnosisInput;
import dev.crashlab.unpack.BundleRejectedException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** Reads an eval case folder into a {@link Perturbation.Case} and a rewritten case back into a bundle's input. */
final class PerturbedCase {

    private PerturbedCase() {}

    /** The case's files (its meta.json left out), by bundle path, as ISO-8859-1 text so every byte round-trips. */
    static Perturbation.Case of(Path folder) throws IOException {
        Map<String, String> files = new LinkedHashMap<>();
        try (Stream<Path> s = Files.walk(folder)) {
            for (Path p : s.filter(Files::isRegularFile).sorted().toList()) {
                String rel = folder.relativize(p).toString().replace('\\', '/');
                if (!rel.equals("meta.json")) {
                    files.put(rel, Files.readString(p, StandardCharsets.ISO_8859_1));
                }
            }
        }
        return new Perturbation.Case(folder.getFileName().toString(), files);
    }

    /** The rewritten case read as a bundle (written to a temporary folder that is removed afterwards). */
    static DiagnosisInput read(Perturbation.Case c) throws IOException, BundleRejectedException {
        Path dir = Files.createTempDirectory("crashlab-perturbed-");
        try {
            for (Map.Entry<String, String> e : c.files().entrySet()) {
                Path f = dir.resolve(e.getKey());
                Files.createDirectories(f.getParent());
                Files.writeString(f, e.getValue(), StandardCharsets.ISO_8859_1);
            }
            return OfflineBundle.read(List.of(dir), p -> false);
        } finally {
            try (Stream<Path> left = Files.walk(dir)) {
                left.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
