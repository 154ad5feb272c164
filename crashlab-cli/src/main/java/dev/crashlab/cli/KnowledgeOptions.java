package dev.crashlab.cli;

import dev.crashlab.diagnose.DiagnosisEngine;
import dev.crashlab.diagnose.KnowledgeSource;
import dev.crashlab.search.KbIndex;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The {@code --kb} and {@code --compat} options shared by the commands that load the knowledge base. */
public final class KnowledgeOptions {

    @Option(names = "--kb", paramLabel = "DIR", description = "the articles folder (default: ./kb-articles if present, else the copy in the jar)")
    Path kbDir;

    @Option(names = "--compat", paramLabel = "DIR", description = "the compat tables folder (default: compat/ beside the articles, else the copy in the jar)")
    Path compatDir;

    public KnowledgeSource load() {
        return KnowledgeSource.load(kbDir, compatDir);
    }

    /** Builds the engine over a loaded source, with the Lucene similarity. */
    public static DiagnosisEngine engine(KnowledgeSource source) {
        return new DiagnosisEngine(source.kb(), source.compat(), KbIndex.build(source.kb()));
    }
}
