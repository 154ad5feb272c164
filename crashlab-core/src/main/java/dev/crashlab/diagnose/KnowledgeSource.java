package dev.crashlab.diagnose;

import dev.crashlab.compat.CompatChecks;
import dev.crashlab.compat.CompatData;
import dev.crashlab.kb.KbLoader;
import dev.crashlab.kb.KbProblem;
import dev.crashlab.kb.KnowledgeBase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Finds and loads the knowledge base and compat tables: a folder when given (or {@code kb-articles/} and
 * {@code compat/} in the working directory), else the copy packaged in the jar.
 *
 * @param kb the valid articles (fingerprint covers the compat tables too)
 * @param compat the compat tables
 * @param problems every validation problem of both
 */
public record KnowledgeSource(KnowledgeBase kb, CompatData compat, List<KbProblem> problems) {

    public KnowledgeSource {
        problems = List.copyOf(problems);
    }

    /**
     * Loads from {@code kbDir} / {@code compatDir} where given; where null, from {@code ./kb-articles} and
     * {@code ./compat} if they exist, else from the packaged copy.
     */
    public static KnowledgeSource load(Path kbDir, Path compatDir) {
        KbLoader loader = new KbLoader(CompatChecks.ids());
        Path kbFolder = kbDir != null ? kbDir : Files.isDirectory(Path.of("kb-articles")) ? Path.of("kb-articles") : null;
        KbLoader.Result r = kbFolder != null ? loader.load(kbFolder) : loader.loadPackaged();
        Path compatFolder = compatDir != null ? compatDir
                : kbFolder != null && Files.isDirectory(kbFolder.toAbsolutePath().getParent().resolve("compat"))
                        ? kbFolder.toAbsolutePath().getParent().resolve("compat")
                        : Files.isDirectory(Path.of("compat")) ? Path.of("compat") : null;
        CompatData compat = compatFolder != null ? CompatData.load(compatFolder) : CompatData.loadPackaged();
        List<KbProblem> problems = new ArrayList<>(r.problems());
        problems.addAll(compat.problems());
        var sha = sha256();
        sha.update(r.kb().fingerprint().getBytes(StandardCharsets.UTF_8));
        sha.update(compat.fingerprintText().getBytes(StandardCharsets.UTF_8));
        KnowledgeBase kb = new KnowledgeBase(r.kb().articles(), HexFormat.of().formatHex(sha.digest()).substring(0, 16), r.kb().origin());
        return new KnowledgeSource(kb, compat, problems);
    }

    private static java.security.MessageDigest sha256() {
        try {
            return java.security.MessageDigest.getInstance("SHA-256");
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
