package dev.crashlab.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every command that README.md and {@code docs/*.md} show in a fenced {@code sh} block runs as written: each
 * {@code scripts/<x>} exists and is executable ({@code scripts/bench <name>} names one of its benchmarks, and an
 * option given to a script is one the script reads), and for each {@code bin/crashlab <command>} the CLI has that
 * command, declares every option written after it, and answers {@code <command> --help} with status 0. Relative
 * links between the documents lead to a file and, with a {@code #fragment}, to one of its headings.
 *
 * <p>NOTE: {@code bin/crashlab} runs {@link CrashLabCli} for every command but {@code serve} and {@code migrate} (the
 * server's, whose options are read from its source); this test drives that class in-process rather than the launcher,
 * which would build the jar first.
 */
class DocsCommandsTest {

    /** One simple command from a fenced block: where it is, and its words as the shell would split them. */
    record ShellCommand(String where, List<String> words) {
        String program() {
            return words.isEmpty() ? "" : words.get(0);
        }

        List<String> args() {
            return words.subList(1, words.size());
        }
    }

    static final Pattern FENCE = Pattern.compile("^\\s*(```+|~~~+)\\s*([A-Za-z0-9_-]*).*$");
    static final Set<String> SHELL_INFO = Set.of("sh", "bash", "shell", "console");
    static final Pattern ASSIGNMENT = Pattern.compile("^[A-Za-z_][A-Za-z0-9_]*=.*", Pattern.DOTALL);
    static final Pattern BENCH_CASE = Pattern.compile("^\\s+([a-z][a-z-]*)\\) shift;", Pattern.MULTILINE);
    static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

    static List<Path> documents() {
        List<Path> docs = new ArrayList<>(List.of(Path.of("README.md")));
        try (Stream<Path> s = Files.list(Path.of("docs"))) {
            s.filter(p -> p.getFileName().toString().endsWith(".md")).sorted().forEach(docs::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return docs;
    }

    static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The simple commands of every fenced shell block in {@code markdown}. */
    static List<ShellCommand> shellCommands(String file, String markdown) {
        List<ShellCommand> out = new ArrayList<>();
        String[] lines = markdown.split("\n", -1);
        boolean inShell = false;
        String fence = null;
        StringBuilder pending = new StringBuilder();
        int pendingLine = 0;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            Matcher m = FENCE.matcher(line);
            if (fence == null && m.matches()) {
                fence = m.group(1);
                inShell = SHELL_INFO.contains(m.group(2).toLowerCase(Locale.ROOT));
                continue;
            }
            if (fence != null && line.strip().equals(fence)) {
                fence = null;
                inShell = false;
                continue;
            }
            if (!inShell) {
                continue;
            }
            if (pending.isEmpty()) {
                pendingLine = i + 1;
            }
            if (line.endsWith("\\") && !line.strip().startsWith("#")) {
                pending.append(line, 0, line.length() - 1).append(' ');
                continue;
            }
            pending.append(line);
            for (List<String> words : split(pending.toString())) {
                int first = 0;
                while (first < words.size() && ASSIGNMENT.matcher(words.get(first)).matches()) {
                    first++;
                }
                if (first < words.size()) {
                    out.add(new ShellCommand(file + ":" + pendingLine, List.copyOf(words.subList(first, words.size()))));
                }
            }
            pending.setLength(0);
        }
        return out;
    }

    /**
     * Splits one shell line into simple commands and their words: quotes and backslashes as the shell reads them,
     * a {@code #} that starts a word ends the line, {@code | || && ; &} separate commands, and a redirection is dropped
     * with its target.
     */
    static List<List<String>> split(String line) {
        List<List<String>> commands = new ArrayList<>();
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        boolean dropNextWord = false;
        int i = 0;
        while (i < line.length()) {
            char c = line.charAt(i);
            if (c == '\'' || c == '"') {
                int end = line.indexOf(c, i + 1);
                if (end < 0) {
                    end = line.length();
                }
                word.append(line, i + 1, end);
                inWord = true;
                i = end + 1;
                continue;
            }
            if (c == '\\' && i + 1 < line.length()) {
                word.append(line.charAt(i + 1));
                inWord = true;
                i += 2;
                continue;
            }
            if (c == '#' && !inWord) {
                break;
            }
            if (Character.isWhitespace(c) || c == '|' || c == ';' || c == '&' || c == '<' || c == '>') {
                boolean redirect = c == '<' || c == '>';
                if (redirect && inWord && word.chars().allMatch(Character::isDigit)) {
                    word.setLength(0); // 2>/dev/null: the 2 is the redirection's, not a word
                    inWord = false;
                }
                if (inWord) {
                    if (dropNextWord) {
                        dropNextWord = false;
                    } else {
                        words.add(word.toString());
                    }
                    word.setLength(0);
                    inWord = false;
                }
                if (redirect) {
                    while (i + 1 < line.length() && (line.charAt(i + 1) == '>' || line.charAt(i + 1) == '&')) {
                        i++;
                    }
                    dropNextWord = true;
                } else if (!Character.isWhitespace(c) && !words.isEmpty()) {
                    commands.add(words);
                    words = new ArrayList<>();
                }
                i++;
                continue;
            }
            word.append(c);
            inWord = true;
            i++;
        }
        if (inWord && !dropNextWord) {
            words.add(word.toString());
        }
        if (!words.isEmpty()) {
            commands.add(words);
        }
        return commands;
    }

    /** What is wrong with the commands (empty when every one runs as written). */
    static List<String> problems(List<ShellCommand> commands) {
        List<String> problems = new ArrayList<>();
        for (ShellCommand c : commands) {
            String program = c.program();
            if (program.equals("bin/crashlab")) {
                problems.addAll(crashlabProblems(c));
            } else if (program.startsWith("scripts/")) {
                problems.addAll(scriptProblems(c));
            }
        }
        return problems;
    }

    /** The server's migrate command (not the CLI's: it runs from the server's jars), whose options its class declares. */
    static final Path MIGRATE = Path.of("crashlab-server/src/main/java/dev/crashlab/migrate/Migrate.java");

    static List<String> migrateProblems(ShellCommand c, Path launcher) {
        List<String> problems = new ArrayList<>();
        if (!read(launcher).contains("\n  migrate)") || !Files.isRegularFile(MIGRATE)) {
            return List.of(c.where() + ": bin/crashlab has no migrate command");
        }
        String source = read(MIGRATE);
        for (String arg : c.args().subList(1, c.args().size())) {
            if (arg.startsWith("-") && arg.length() > 1) {
                String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
                // an option is one the parser knows (its Set.of) and the help text names
                if (!source.contains("\"" + name + "\"") || !source.contains(" " + name + " ")) {
                    problems.add(c.where() + ": 'crashlab migrate' has no option " + name);
                }
            }
        }
        return problems;
    }

    static List<String> crashlabProblems(ShellCommand c) {
        List<String> problems = new ArrayList<>();
        Path launcher = Path.of("bin/crashlab");
        if (!Files.isExecutable(launcher)) {
            return List.of(c.where() + ": bin/crashlab is missing or not executable");
        }
        List<String> args = c.args();
        if (args.isEmpty()) {
            return problems;
        }
        if (args.get(0).equals("serve")) {
            if (!read(launcher).contains("\n  serve)")) {
                problems.add(c.where() + ": bin/crashlab has no serve command");
            }
            return problems;
        }
        if (args.get(0).equals("migrate")) {
            return migrateProblems(c, launcher);
        }
        CommandLine cl = CrashLabCli.commandLine();
        List<String> path = new ArrayList<>();
        int i = 0;
        while (i < args.size() && cl.getSubcommands().containsKey(args.get(i))) {
            cl = cl.getSubcommands().get(args.get(i));
            path.add(args.get(i));
            i++;
        }
        if (path.isEmpty() && !args.get(0).startsWith("-")) {
            return List.of(c.where() + ": bin/crashlab has no command '" + args.get(0) + "'");
        }
        for (String arg : args.subList(i, args.size())) {
            if (arg.startsWith("-") && arg.length() > 1) {
                String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
                if (cl.getCommandSpec().findOption(name) == null) {
                    problems.add(c.where() + ": 'crashlab " + String.join(" ", path) + "' has no option " + name);
                }
            }
        }
        List<String> help = new ArrayList<>(path);
        help.add("--help");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine run = CrashLabCli.commandLine();
        run.setOut(new PrintWriter(out, true));
        run.setErr(new PrintWriter(err, true));
        int status = run.execute(help.toArray(String[]::new));
        if (status != 0 || !out.toString().startsWith("Usage: crashlab")) {
            problems.add(c.where() + ": 'crashlab " + String.join(" ", help) + "' exits " + status + ": " + err.toString().strip());
        }
        return problems;
    }

    static List<String> scriptProblems(ShellCommand c) {
        Path script = Path.of(c.program());
        if (!Files.isRegularFile(script) || !Files.isExecutable(script)) {
            return List.of(c.where() + ": " + script + " is missing or not executable");
        }
        List<String> problems = new ArrayList<>();
        String text = read(script);
        List<String> args = c.args();
        if (script.equals(Path.of("scripts/bench"))) {
            Set<String> names = new LinkedHashSet<>();
            BENCH_CASE.matcher(text).results().forEach(r -> names.add(r.group(1)));
            if (args.isEmpty() || !names.contains(args.get(0))) {
                problems.add(c.where() + ": scripts/bench has no benchmark '" + (args.isEmpty() ? "" : args.get(0)) + "' (it has " + names + ")");
            }
        }
        for (String arg : args) {
            if (arg.startsWith("--") && !text.contains(arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg)) {
                problems.add(c.where() + ": " + script + " does not read " + arg);
            }
        }
        return problems;
    }

    /** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
    static String anchor(String heading) {
        return heading.strip().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
    }

    static Set<String> anchors(String markdown) {
        Set<String> out = new LinkedHashSet<>();
        boolean inFence = false;
        for (String line : markdown.split("\n")) {
            if (line.strip().startsWith("```")) {
                inFence = !inFence;
            } else if (!inFence && line.startsWith("#")) {
                out.add(anchor(line.replaceFirst("^#+\\s*", "")));
            }
        }
        return out;
    }

    @Test
    void everyDocumentedCommandRunsAsWritten() {
        List<ShellCommand> commands = new ArrayList<>();
        for (Path doc : documents()) {
            commands.addAll(shellCommands(doc.toString(), read(doc)));
        }
        // not vacuous: the documents name CLI commands (several of them) and scripts
        assertThat(commands).filteredOn(c -> c.program().equals("bin/crashlab")).extracting(c -> c.args().isEmpty() ? "" : c.args().get(0))
                .contains("serve", "inspect", "facts", "diagnose", "evtx", "kb", "eval", "repro", "worker");
        assertThat(commands).extracting(ShellCommand::program).contains("scripts/test", "scripts/bench");

        assertThat(problems(commands)).isEmpty();
    }

    @Test
    void readmeOpensWithTheTwoCommands() {
        List<ShellCommand> first = shellCommands("README.md", read(Path.of("README.md")));
        assertThat(first).extracting(ShellCommand::words).startsWith(List.of("bin/crashlab", "serve"), List.of("scripts/test"));
    }

    @Test
    void theCheckNamesWhatDoesNotRun() {
        String doc = """
                Some text with `bin/crashlab nowhere` outside a block, which is not checked.

                ```sh
                bin/crashlab evtx --no-such-option System.evtx     # an option evtx does not declare
                bin/crashlab nosuch file                            # a command the CLI does not have
                scripts/nosuch                                      # a script that is not there
                scripts/bench nosuch                                # a benchmark that is not there
                scripts/test --slow                                 # an option the script does not read
                bin/crashlab kb check --json                        # kb check has no --json
                bin/crashlab migrate --from ./data --to-bucket s3://b   # migrate has --to-blobs, not --to-bucket
                ```
                """;
        assertThat(problems(shellCommands("x.md", doc))).hasSize(7)
                .anyMatch(p -> p.startsWith("x.md:4: 'crashlab evtx' has no option --no-such-option"))
                .anyMatch(p -> p.startsWith("x.md:5: bin/crashlab has no command 'nosuch'"))
                .anyMatch(p -> p.startsWith("x.md:6: scripts/nosuch is missing"))
                .anyMatch(p -> p.startsWith("x.md:7: scripts/bench has no benchmark 'nosuch'"))
                .anyMatch(p -> p.startsWith("x.md:8: scripts/test does not read --slow"))
                .anyMatch(p -> p.startsWith("x.md:9: 'crashlab kb check' has no option --json"))
                .anyMatch(p -> p.startsWith("x.md:10: 'crashlab migrate' has no option --to-bucket"));
    }

    @Test
    void readsCommandsAsTheShellWould() {
        String doc = """
                ```sh
                CRASHLAB_TOKEN=clt_x A='b c' \\
                    bin/crashlab evtx --format jsonl "my logs/" | jq .   # a comment with bin/crashlab nosuch
                bin/crashlab evtx --problems damaged.evtx >/dev/null 2>&1; scripts/test --fast && echo ok
                ```

                ```json
                {"bin/crashlab": "not a shell block"}
                ```
                """;
        assertThat(shellCommands("y.md", doc)).containsExactly(
                new ShellCommand("y.md:2", List.of("bin/crashlab", "evtx", "--format", "jsonl", "my logs/")),
                new ShellCommand("y.md:2", List.of("jq", ".")),
                new ShellCommand("y.md:4", List.of("bin/crashlab", "evtx", "--problems", "damaged.evtx")),
                new ShellCommand("y.md:4", List.of("scripts/test", "--fast")),
                new ShellCommand("y.md:4", List.of("echo", "ok")));
    }

    @Test
    void everyRelativeLinkLeadsToAFileAndHeading() {
        List<String> broken = new ArrayList<>();
        List<Path> docs = new ArrayList<>(documents());
        docs.add(Path.of("DEVELOPERS.md"));
        for (Path doc : docs) {
            Matcher m = LINK.matcher(read(doc));
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("^[a-z]+:.*")) {
                    continue; // https:, mailto:
                }
                String file = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
                String fragment = target.contains("#") ? target.substring(target.indexOf('#') + 1) : null;
                Path resolved = file.isEmpty() ? doc : doc.resolveSibling(file).normalize();
                if (!Files.exists(resolved)) {
                    broken.add(doc + ": " + target + " (no " + resolved + ")");
                } else if (fragment != null && resolved.toString().endsWith(".md") && !anchors(read(resolved)).contains(fragment)) {
                    broken.add(doc + ": " + target + " (no heading #" + fragment + " in " + resolved + ")");
                }
            }
        }
        assertThat(broken).isEmpty();
    }

    @Test
    void anchorsAreGitHubs() {
        assertThat(anchor("Replaying a model: `bin/crashlab repro`")).isEqualTo("replaying-a-model-bincrashlab-repro");
        assertThat(anchor("Users, roles and tokens")).isEqualTo("users-roles-and-tokens");
    }
}
