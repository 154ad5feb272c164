package dev.crashlab.kb.service;

import dev.crashlab.config.CrashLabConfig;
import dev.crashlab.diagnose.DiagnosisEngine;
import dev.crashlab.diagnose.KnowledgeSource;
import dev.crashlab.kb.KbProblem;
import dev.crashlab.search.KbIndex;
import dev.crashlab.search.MiniLmEmbedder;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jboss.logging.Logger;

/**
 * Holds the loaded knowledge base, its search index (words and, unless {@code crashlab.kb.meaning=false}, meaning)
 * and the diagnosis engine; refuses to start on an invalid
 * article, and reloads when the article or compat files on disk change (checked at most every two seconds).
 */
@ApplicationScoped
@Startup
public class KnowledgeService {

    private static final Logger LOG = Logger.getLogger(KnowledgeService.class);
    private static final long CHECK_EVERY_NANOS = 2_000_000_000L;

    /** What is loaded now: the source, its index and engine, and the on-disk state it was read from. */
    public record Loaded(KnowledgeSource source, KbIndex index, DiagnosisEngine engine, String diskStamp) {}

    @Inject
    CrashLabConfig config;

    private volatile Loaded loaded;
    private volatile long lastCheck;

    /** Loads the KB at start-up; an invalid KB stops the application with every problem in the message. */
    @jakarta.annotation.PostConstruct
    void init() {
        Loaded l = load();
        if (!l.source().problems().isEmpty()) {
            throw new IllegalStateException("the knowledge base is invalid:\n" + l.source().problems().stream()
                    .map(KbProblem::toString).collect(Collectors.joining("\n")));
        }
        loaded = l;
        LOG.infof("knowledge base: %d articles from %s (fingerprint %s)", l.source().kb().articles().size(),
                l.source().kb().origin(), l.source().kb().fingerprint());
        if (config.kb().meaning() && config.kb().meaningWarmup()) {
            // off the start-up path: the first search by meaning would otherwise load the model (seconds)
            Thread.ofVirtual().name("kb-meaning-warmup").start(() -> {
                try {
                    l.index().warm();
                    LOG.infof("KB search by meaning ready: %s", l.index().meaningStats());
                } catch (RuntimeException | LinkageError e) {
                    LOG.warnf(e, "KB search by meaning could not load its model; searches by meaning will fail");
                }
            });
        }
    }

    /** The current KB, reloaded first if its files changed; a changed KB with problems is logged and not taken. */
    public Loaded current() {
        long now = System.nanoTime();
        if (now - lastCheck > CHECK_EVERY_NANOS) {
            lastCheck = now;
            String stamp = diskStamp();
            if (!stamp.isEmpty() && !stamp.equals(loaded.diskStamp())) {
                Loaded l = load();
                if (l.source().problems().isEmpty()) {
                    loaded = l;
                    LOG.infof("knowledge base reloaded: %d articles (fingerprint %s)", l.source().kb().articles().size(),
                            l.source().kb().fingerprint());
                } else {
                    LOG.warnf("knowledge base changed but is invalid; keeping the previous one:%n%s", l.source().problems().stream()
                            .map(KbProblem::toString).collect(Collectors.joining("\n")));
                    loaded = new Loaded(loaded.source(), loaded.index(), loaded.engine(), stamp);
                }
            }
        }
        return loaded;
    }

    private Loaded load() {
        KnowledgeSource source = KnowledgeSource.load(config.kb().dir().orElse(null), config.kb().compatDir().orElse(null));
        KbIndex index = KbIndex.build(source.kb(), config.kb().meaning() ? MiniLmEmbedder.shared() : null);
        return new Loaded(source, index, new DiagnosisEngine(source.kb(), source.compat(), index), diskStamp());
    }

    // The newest modification time and count of the article and compat files on disk; empty when served from the jar.
    private String diskStamp() {
        Path kb = config.kb().dir().orElse(Files.isDirectory(Path.of("kb-articles")) ? Path.of("kb-articles") : null);
        if (kb == null) {
            return "";
        }
        Path compat = config.kb().compatDir().orElse(kb.toAbsolutePath().getParent().resolve("compat"));
        long newest = 0;
        long count = 0;
        for (Path dir : new Path[] {kb, compat}) {
            if (!Files.isDirectory(dir)) {
                continue;
            }
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    newest = Math.max(newest, Files.getLastModifiedTime(f).toMillis());
                    count++;
                }
            } catch (IOException e) {
                return "";
            }
        }
        return newest + "/" + count;
    }
}
