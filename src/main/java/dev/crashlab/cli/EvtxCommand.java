package dev.crashlab.cli;

import dev.crashlab.parse.evtx.EvtxJson;
import dev.crashlab.parse.evtx.EvtxProblem;
import dev.crashlab.parse.evtx.EvtxReader;
import dev.crashlab.parse.evtx.EvtxRecord;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** Dumps every record of a binary Windows event log (.evtx) as XML or JSON lines. */
@Command(name = "evtx",
        description = {"Read a binary Windows event log (.evtx) and print every record, in file order.",
                       "Damaged chunks and records are skipped and counted; --problems lists them on stderr.",
                       "Exits 1 if the file holds no readable chunk, 2 if it cannot be opened."})
final class EvtxCommand implements Callable<Integer> {

    /** Output formats. */
    enum Format { xml, jsonl }

    @Parameters(index = "0", paramLabel = "FILE", description = "the .evtx file")
    Path file;

    @Option(names = "--format", defaultValue = "xml", description = "xml (one <Event> per line inside <Events>) or jsonl (one JSON object per record); default ${DEFAULT-VALUE}")
    Format format;

    @Option(names = "--problems", description = "print each problem (what, chunk, record, offset, why) to stderr")
    boolean problems;

    @Option(names = "--bench", hidden = true, paramLabel = "SECONDS",
            description = "read FILE over and over in-process for SECONDS after a warm-up; print records/s (scripts/bench evtx)")
    double benchSeconds;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    // The in-process warm loop: what the reader itself costs once the JIT has compiled it.
    private int bench(PrintWriter err) {
        try {
            long warmEnd = System.nanoTime() + 2_000_000_000L;
            while (System.nanoTime() < warmEnd) {
                readAll();
            }
            long records = 0;
            long start = System.nanoTime();
            long end = start + (long) (benchSeconds * 1e9);
            do {
                records += readAll();
            } while (System.nanoTime() < end);
            double seconds = (System.nanoTime() - start) / 1e9;
            err.printf(java.util.Locale.ROOT, "bench: records=%d seconds=%.3f records_per_s=%.0f%n", records, seconds, records / seconds);
            err.flush();
            return 0;
        } catch (IOException e) {
            err.println("crashlab evtx: cannot read " + file + ": " + e.getMessage());
            return 2;
        }
    }

    private long readAll() throws IOException {
        long n = 0;
        try (EvtxReader reader = EvtxReader.open(file, p -> { })) {
            while (reader.hasNext()) {
                reader.next();
                n++;
            }
        }
        return n;
    }

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        if (!Files.isRegularFile(file)) {
            err.println("crashlab evtx: no such file: " + file);
            return 2;
        }
        if (benchSeconds > 0) {
            return bench(err);
        }
        int[] problemCount = {0};
        long records = 0;
        Writer out = new BufferedWriter(spec.commandLine().getOut(), 1 << 16);
        try (EvtxReader reader = EvtxReader.open(file, p -> {
            problemCount[0]++;
            if (problems) {
                err.println("evtx: " + p.kind() + ": " + p.message());
            }
        })) {
            EvtxJson json = format == Format.jsonl ? new EvtxJson(out) : null;
            if (json == null) {
                out.write("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<Events>\n");
            }
            while (reader.hasNext()) {
                EvtxRecord r = reader.next();
                records++;
                if (json != null) {
                    json.write(r);
                } else {
                    out.write(r.xml());
                    out.write('\n');
                }
            }
            if (json != null) {
                json.flush();
            } else {
                out.write("</Events>\n");
            }
            out.flush();
            if (problemCount[0] > 0 && !problems) {
                err.println("crashlab evtx: " + problemCount[0] + " problem(s) reading " + file.getFileName()
                        + "; --problems lists them");
            }
            err.flush();
            return reader.chunksRead() == 0 && records == 0 ? 1 : 0;
        } catch (IOException | java.io.UncheckedIOException e) {
            err.println("crashlab evtx: cannot read " + file + ": " + e.getMessage());
            return 2;
        }
    }
}
