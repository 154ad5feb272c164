package dev.crashlab.cli;

import dev.crashlab.parse.evtx.EvtxJson;
import dev.crashlab.parse.evtx.EvtxReader;
import dev.crashlab.parse.evtx.EvtxRecord;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** Dumps every record of one or more binary Windows event logs (.evtx) as XML or JSON lines. */
@Command(name = "evtx",
        description = {"Read binary Windows event logs (.evtx); print every record, in file order.",
                       "A FILE may be a folder: its .evtx files are read, recursively, by path.",
                       "With several files, each JSON line has a \"file\" key and the XML has",
                       "a <!-- file: ... --> comment before each file's records.",
                       "Damaged chunks and records are skipped and counted (--problems lists them).",
                       "Exit status: 2 if a file cannot be opened, else 1 if a file holds no",
                       "readable chunk, else 0. The other files are read either way."})
final class EvtxCommand implements Callable<Integer> {

    /** Output formats. */
    enum Format { xml, jsonl }

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "a .evtx file, or a folder of them")
    List<Path> inputs;

    @Option(names = "--format", defaultValue = "xml", description = "xml (one <Event> per line inside <Events>) or jsonl (one JSON object per record); default ${DEFAULT-VALUE}")
    Format format;

    @Option(names = "--problems", description = "print each problem (what, chunk, record, offset, why) to stderr")
    boolean problems;

    @Option(names = "--bench", hidden = true, paramLabel = "SECONDS",
            description = "read the files over and over in-process for SECONDS after a warm-up; print records/s (scripts/bench evtx)")
    double benchSeconds;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    // set by runPlain; otherwise picocli's (the spec's command line)
    private PrintWriter plainOut;
    private PrintWriter plainErr;

    /**
     * Runs {@code evtx ARGS} without picocli, or returns null when ARGS hold anything but FILEs (none starting with
     * {@code -} or {@code @}), {@code --format xml|jsonl} (or {@code --format=...}) and {@code --problems}, each
     * option at most once: picocli then parses them, with its help, messages and suggestions. What runs is the same
     * {@link #call()} with the same fields picocli would set.
     *
     * <p>NOTE: picocli's classes are compiled for Java 5, which the JDK's start-up cache (bin/crashlab) cannot hold:
     * loading, verifying and reading the annotations of about 170 of them took a quarter of a one-file run.
     */
    static Integer runPlain(List<String> args, PrintWriter out, PrintWriter err) {
        EvtxCommand c = new EvtxCommand();
        c.inputs = new ArrayList<>();
        c.format = Format.xml;
        boolean formatSeen = false;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            String value = null;
            if (a.equals("--format")) {
                if (i + 1 == args.size()) {
                    return null;
                }
                value = args.get(++i);
            } else if (a.startsWith("--format=")) {
                value = a.substring("--format=".length());
            } else if (a.equals("--problems")) {
                if (c.problems) {
                    return null;
                }
                c.problems = true;
                continue;
            } else if (a.isEmpty() || a.startsWith("-") || a.startsWith("@")) {
                return null;
            } else {
                try {
                    c.inputs.add(Path.of(a));
                } catch (java.nio.file.InvalidPathException e) {
                    return null;
                }
                continue;
            }
            if (formatSeen) {
                return null;
            }
            formatSeen = true;
            if (value.equalsIgnoreCase("xml")) {
                c.format = Format.xml;
            } else if (value.equalsIgnoreCase("jsonl")) {
                c.format = Format.jsonl;
            } else {
                return null;
            }
        }
        if (c.inputs.isEmpty()) {
            return null;
        }
        c.plainOut = out;
        c.plainErr = err;
        return c.call();
    }

    @Override
    public Integer call() {
        PrintWriter err = plainErr != null ? plainErr : spec.commandLine().getErr();
        List<Path> files = new ArrayList<>();
        int status = 0;
        for (Path in : inputs) {
            if (Files.isDirectory(in)) {
                try (Stream<Path> s = Files.walk(in)) {
                    s.filter(p -> Files.isRegularFile(p) && p.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".evtx"))
                            .sorted().forEach(files::add);
                } catch (IOException | UncheckedIOException e) {
                    err.println("crashlab evtx: cannot list " + in + ": " + e.getMessage());
                    status = 2;
                }
            } else if (Files.isRegularFile(in)) {
                files.add(in);
            } else {
                err.println("crashlab evtx: no such file: " + in);
                status = 2;
            }
        }
        if (files.isEmpty()) {
            if (status == 0) {
                err.println("crashlab evtx: no .evtx files in " + inputs);
            }
            err.flush();
            return 2;
        }
        if (benchSeconds > 0) {
            return bench(files, err);
        }
        try {
            return Math.max(status, dump(files, err));
        } finally {
            err.flush();
        }
    }

    private int dump(List<Path> files, PrintWriter err) {
        boolean several = files.size() > 1;
        int status = 0;
        Writer out = new BufferedWriter(plainOut != null ? plainOut : spec.commandLine().getOut(), 1 << 16);
        try {
            EvtxJson json = format == Format.jsonl ? new EvtxJson(out) : null;
            if (json == null) {
                out.write("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<Events>\n");
            }
            for (Path file : files) {
                String name = several ? file.toString() : null;
                if (json == null && several) {
                    // "--" may not appear inside an XML comment
                    out.write("<!-- file: " + file.toString().replace("--", "-\u2010") + " -->\n");
                }
                status = Math.max(status, dumpOne(file, name, json, out, err));
            }
            if (json != null) {
                json.flush();
            } else {
                out.write("</Events>\n");
            }
            out.flush();
        } catch (IOException e) {
            err.println("crashlab evtx: cannot write the output: " + e.getMessage());
            return 2;
        }
        return status;
    }

    // One file's records; status 0, 1 (no readable chunk) or 2 (cannot be read). Output errors propagate.
    private int dumpOne(Path file, String name, EvtxJson json, Writer out, PrintWriter err) throws IOException {
        String prefix = name == null ? "evtx: " : "evtx: " + name + ": ";
        int[] problemCount = {0};
        long records = 0;
        EvtxReader reader;
        try {
            // every other chunk decoded on a second thread: a one-file run is mostly cold code, which two threads
            // get through sooner
            reader = EvtxReader.openReadingAhead(file, p -> {
                problemCount[0]++;
                if (problems) {
                    err.println(prefix + p.kind() + ": " + p.message());
                }
            });
        } catch (IOException e) {
            err.println("crashlab evtx: cannot read " + file + ": " + e.getMessage());
            return 2;
        }
        try (reader) {
            while (reader.hasNext()) {
                EvtxRecord r = reader.next();
                records++;
                if (json != null) {
                    json.write(r, name);
                } else {
                    out.write(r.xml());
                    out.write('\n');
                }
            }
        } catch (UncheckedIOException e) {
            err.println("crashlab evtx: cannot read " + file + ": " + e.getCause().getMessage());
            return 2;
        }
        if (problemCount[0] > 0 && !problems) {
            err.println("crashlab evtx: " + problemCount[0] + " problem(s) reading " + file.getFileName()
                    + "; --problems lists them");
        }
        return reader.chunksRead() == 0 && records == 0 ? 1 : 0;
    }

    // The in-process warm loop: what the reader itself costs once the JIT has compiled it.
    private int bench(List<Path> files, PrintWriter err) {
        try {
            long warmEnd = System.nanoTime() + 2_000_000_000L;
            while (System.nanoTime() < warmEnd) {
                readAll(files);
            }
            long records = 0;
            long start = System.nanoTime();
            long end = start + (long) (benchSeconds * 1e9);
            do {
                records += readAll(files);
            } while (System.nanoTime() < end);
            double seconds = (System.nanoTime() - start) / 1e9;
            err.printf(Locale.ROOT, "bench: records=%d seconds=%.3f records_per_s=%.0f%n", records, seconds, records / seconds);
            err.flush();
            return 0;
        } catch (IOException | UncheckedIOException e) {
            err.println("crashlab evtx: cannot read: " + e.getMessage());
            return 2;
        }
    }

    private static long readAll(List<Path> files) throws IOException {
        long n = 0;
        for (Path file : files) {
            try (EvtxReader reader = EvtxReader.open(file, p -> { })) {
                while (reader.hasNext()) {
                    reader.next();
                    n++;
                }
            }
        }
        return n;
    }
}
