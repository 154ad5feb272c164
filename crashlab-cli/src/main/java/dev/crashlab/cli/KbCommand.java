package dev.crashlab.cli;

import dev.crashlab.diagnose.KnowledgeSource;
import dev.crashlab.kb.KbProblem;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** Validates the knowledge base: {@code crashlab kb check [DIR]}. */
@Command(name = "kb", description = "Knowledge-base tools.", subcommands = {KbCommand.Check.class})
final class KbCommand implements Runnable {

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** Prints every problem as {@code file:line: message}; exits 1 when there is any. */
    @Command(name = "check", description = {"Validate every article (and the compat tables beside them).",
            "Prints file:line: message per problem; exits 1 if there is any."})
    static final class Check implements Callable<Integer> {

        @Parameters(arity = "0..1", paramLabel = "DIR", description = "the articles folder (default: ./kb-articles, else the copy in the jar)")
        Path dir;

        @Spec
        picocli.CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            PrintWriter out = spec.commandLine().getOut();
            KnowledgeSource source = KnowledgeSource.load(dir, null);
            for (KbProblem p : source.problems()) {
                out.println(p);
            }
            out.printf("%d article(s) valid, %d problem(s) (%s)%n", source.kb().articles().size(), source.problems().size(),
                    source.kb().origin());
            out.flush();
            return source.problems().isEmpty() ? 0 : 1;
        }
    }
}
