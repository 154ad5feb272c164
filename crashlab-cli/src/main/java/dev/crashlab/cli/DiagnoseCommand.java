package dev.crashlab.cli;

import dev.crashlab.unpack.BundleRejectedException;
import dev.crashlab.diagnose.Ask;
import dev.crashlab.diagnose.Diagnosis;
import dev.crashlab.diagnose.DiagnosisEngine;
import dev.crashlab.diagnose.DiagnosisInput;
import dev.crashlab.diagnose.DiagnosisJson;
import dev.crashlab.diagnose.Evidence;
import dev.crashlab.diagnose.Hypothesis;
import dev.crashlab.diagnose.KnowledgeSource;
import dev.crashlab.fact.Facts;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** Diagnoses a bundle offline: ranked causes with their evidence. */
@Command(name = "diagnose",
        description = {"Diagnose a crash bundle: ranked root causes with evidence, counter-evidence and what to upload next.",
                       "PATH is a file, a folder (one bundle) or an archive; several PATHs make one bundle."})
final class DiagnoseCommand implements Callable<Integer> {

    @Parameters(arity = "1..*", paramLabel = "PATH", description = "files, folders or archives")
    List<Path> paths;

    @Option(names = "--json", description = "print the diagnosis as JSON (the API's shape)")
    boolean json;

    @Option(names = "--top", defaultValue = "3", description = "hypotheses to print in text mode (default 3)")
    int top;

    @Mixin
    KnowledgeOptions knowledge = new KnowledgeOptions();

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        for (Path p : paths) {
            if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
                err.println("crashlab diagnose: no such file or folder: " + p);
                return 2;
            }
        }
        KnowledgeSource source = knowledge.load();
        if (!source.problems().isEmpty()) {
            source.problems().forEach(err::println);
            err.println("crashlab diagnose: the knowledge base has problems (see above); run `crashlab kb check`");
            return 1;
        }
        DiagnosisEngine engine = KnowledgeOptions.engine(source);
        DiagnosisInput input;
        try {
            boolean caseMeta = paths.stream().anyMatch(DiagnoseCommand::isCaseMetadata);
            if (caseMeta) {
                err.println("crashlab diagnose: left out meta.json: it is a labelled case's metadata (its answer), not evidence");
            }
            input = OfflineBundle.read(paths, p -> caseMeta && p.equals(CASE_METADATA));
        } catch (BundleRejectedException e) {
            err.println("crashlab diagnose: refused: " + e.getMessage());
            return 2;
        }
        Diagnosis d = engine.diagnose(input);
        if (json) {
            out.println(Facts.json().writeValueAsString(DiagnosisJson.toJson(d)));
        } else {
            print(d, out);
        }
        out.flush();
        return 0;
    }

    private void print(Diagnosis d, PrintWriter out) {
        out.println("verdict: " + d.verdict().written() + switch (d.verdict()) {
            case DIAGNOSED -> " (the top cause has decisive evidence and no close rival)";
            case WEAK -> d.equals().size() > 1
                    ? " (the bundle cannot tell these apart yet: " + String.join(", ", d.equals()) + ")"
                    : " (no cause has decisive evidence; the ranking below is a guess)";
            case NO_EVIDENCE -> " (nothing in the bundle is evidence for any cause; the ranking below is a guess)";
        });
        int n = 0;
        for (Hypothesis h : d.hypotheses()) {
            if (n++ >= top) {
                break;
            }
            out.printf(Locale.ROOT, "%d. %-40s %-8s  %s%n", n, h.id(), h.shownStrength(d, n - 1).written(), h.title());
            for (Evidence e : h.evidence()) {
                out.printf("     + %s%s%n", e.text(), where(e));
            }
            for (Evidence e : h.against()) {
                out.printf("     - %s%s%n", e.text(), where(e));
            }
        }
        for (Ask a : d.ask()) {
            out.println("To be sure, add: " + a.artifact() + " (" + String.join(" vs ", a.between()) + ")");
        }
        d.compat().stream().filter(c -> !c.result().equals("unknown"))
                .forEach(c -> out.printf("compat %-26s %-8s %s%n", c.check(), c.result(), c.explanation()));
        d.notes().forEach(note -> out.println("note: " + note));
    }

    private static String where(Evidence e) {
        return e.sources().isEmpty() ? "" : "  [" + e.sources().getFirst().artifact() + ":" + e.sources().getFirst().line() + "]";
    }

    /** The file a labelled corpus case keeps its answer in (corpus README): never diagnosis input. */
    static final String CASE_METADATA = "meta.json";

    /**
     * Tells whether {@code path} is, or is a folder holding at its top, a corpus case's {@code meta.json}: a JSON
     * object with a {@code labels} array (the labelled causes). Such a file would cite the answer as evidence.
     */
    static boolean isCaseMetadata(java.nio.file.Path path) {
        java.nio.file.Path meta = java.nio.file.Files.isDirectory(path) ? path.resolve(CASE_METADATA) : path;
        if (!meta.getFileName().toString().equals(CASE_METADATA) || !java.nio.file.Files.isRegularFile(meta)) {
            return false;
        }
        try {
            return Facts.json().readTree(meta.toFile()).path("labels").isArray();
        } catch (java.io.IOException e) {
            return false; // not JSON: an ordinary file of the bundle
        }
    }
}
