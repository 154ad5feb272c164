package dev.crashlab.reader;

import dev.crashlab.reader.ParseStatus;
import dev.crashlab.diagnose.TextLine;
import dev.crashlab.diagnose.TextLines;
import dev.crashlab.fact.Fact;
import dev.crashlab.fact.Facts;
import dev.crashlab.parse.ArtifactParser;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseProblem;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.parse.Parsers;
import dev.crashlab.parse.PastedText;
import dev.crashlab.parse.TextDecoding;
import dev.crashlab.parse.console.SharedLineScan;
import dev.crashlab.sniff.ArtifactSniffer;
import dev.crashlab.sniff.ArtifactType;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Reads a bundle's artifacts into {@link BundleFacts}, one pass over each artifact's bytes: the head is sniffed
 * (unless the type is known), then the same bytes feed every parser for the type and the text window at once.
 *
 * <p>NOTE: with more than one consumer, each runs on its own virtual thread reading a bounded {@link ChunkPipe};
 * the caller's thread reads the bytes once and hands every chunk to all of them. Memory is bounded by the
 * pipes, the parsers' own bounds and the {@link ReadBudget}, not by the artifact's size. Instances are
 * single-use per bundle and not thread-safe.
 */
public final class BundleReader {

    /**
     * The reader's version, stored with what it read. Raise it when a parser's output changes in a way stored
     * bundles should see: the server reads stored bundles again in the background.
     */
    public static final int VERSION = 6; // 3: env files state source builds (tensorflow-source-build, its BuildInfo); 4: pasted logs read as written (PastedText); 5: nvcc -V and the frameworks' own cuDNN refusals read from console logs, a pasted row cut at 80/100/120 columns joined; 6: rows a page, a mail or a console broke after a blank joined

    private static final int CHUNK = 64 * 1024;

    /** One artifact to read: its path in the bundle, its type if already known (else null), its size and bytes. */
    public record Item(String path, ArtifactType type, long size, ParseInput.Source bytes) {}

    /** Hears how far reading has got (for progress). */
    @FunctionalInterface
    public interface Progress {
        /** {@code done} of {@code total} artifacts are read. */
        void read(int done, int total);
    }

    private final ReadBudget budget;
    private final ArtifactSniffer sniffer = new ArtifactSniffer();
    private final List<BudgetHit> hits = new ArrayList<>();
    private long bytesLeft;
    private long linesLeft;
    private long charsLeft;
    private long factsLeft;
    private long deadline;

    /** A reader under {@code budget}. */
    public BundleReader(ReadBudget budget) {
        this.budget = budget;
    }

    /** Reads every item, in order. */
    public BundleFacts read(List<Item> items) throws IOException {
        return read(items, (done, total) -> {});
    }

    /** Reads every item, in order, telling {@code progress} after each. */
    public BundleFacts read(List<Item> items, Progress progress) throws IOException {
        hits.clear();
        bytesLeft = budget.maxBytes();
        linesLeft = budget.maxLinesKept();
        charsLeft = budget.maxKeptChars();
        factsLeft = budget.maxFacts();
        deadline = System.nanoTime() + budget.maxTime().toNanos();
        List<ArtifactRead> out = new ArrayList<>(items.size());
        try (ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor()) {
            for (Item item : items) {
                out.add(readOne(item, threads));
                progress.read(out.size(), items.size());
            }
        }
        return new BundleFacts(VERSION, out, hits);
    }

    private ArtifactRead readOne(Item item, ExecutorService threads) throws IOException {
        if (item.size() > 0 && (bytesLeft <= 0 || System.nanoTime() - deadline > 0)) {
            // the bundle's budget is spent: recorded as not read, without opening it (a sniff of no bytes goes by name)
            ArtifactType type = item.type() != null ? item.type() : sniffer.sniff(item.path(), new byte[0]);
            return finish(item, type, Parsers.forType(type), List.of(), null, 0,
                    bytesLeft <= 0 ? BudgetedStream.Cut.BYTES : BudgetedStream.Cut.TIME);
        }
        try (BudgetedStream in = new BudgetedStream(item.bytes().open(), bytesLeft, deadline)) {
            byte[] head = in.readNBytes(ArtifactSniffer.HEAD_BYTES);
            ArtifactType type = item.type() != null ? item.type() : sniffer.sniff(item.path(), head);
            // a log as people paste it (colour codes, an issue page's entities and fences, a reply's "> ", a console's
            // wrap) is read as the program wrote it
            InputStream body = in;
            TextDecoding.Detected encoding = TextDecoding.detect(head, head.length);
            PastedText.Form pasted = pastedForm(type, head);
            if ((type == ArtifactType.CONSOLE_LOG || type == ArtifactType.TEXT) && TextDecoding.isUtf16(encoding)) {
                // a pasted log saved as UTF-16 (PowerShell 5.1's redirection of a copied reply or coloured output) is read
                // as the same text in UTF-8, where its paste forms are seen and undone (NOTE: the byte budget counts the
                // file's own bytes); one without them is read as it is
                byte[] utf8Head = TextDecoding.toUtf8(new ByteArrayInputStream(head), encoding).readAllBytes();
                pasted = pastedForm(type, utf8Head);
                if (pasted.any()) {
                    body = TextDecoding.toUtf8(new SequenceInputStream(new ByteArrayInputStream(head), in), encoding);
                    head = body.readNBytes(ArtifactSniffer.HEAD_BYTES);
                }
            }
            if (pasted.any()) {
                body = PastedText.clean(new SequenceInputStream(new ByteArrayInputStream(head), body), pasted);
                head = body.readNBytes(ArtifactSniffer.HEAD_BYTES);
                type = item.type() != null ? item.type() : sniffer.sniff(item.path(), head);
            }
            List<ArtifactParser> parsers = Parsers.forType(type);
            boolean window = TextLines.hasText(type) && linesLeft > 0 && charsLeft > 0;
            int consumers = parsers.size() + (window ? 1 : 0);
            long maxHead = Math.min(TextLines.HEAD_LINES, linesLeft);
            long maxTail = Math.min(TextLines.TAIL_LINES, Math.max(0, linesLeft - maxHead));
            long maxChars = charsLeft;
            InputStream rest = body;
            if (consumers > 1 && SharedLineScan.canRead(parsers)) {
                // one scan for every parser and the window, on this thread (text in UTF-16 takes the pipes below)
                InputStream all = new java.io.BufferedInputStream(
                        new SequenceInputStream(new ByteArrayInputStream(head), body), WINDOW_SNIFF + 1);
                all.mark(WINDOW_SNIFF + 1);
                byte[] sniffed = all.readNBytes(WINDOW_SNIFF);
                all.reset();
                TextDecoding.Detected d = TextDecoding.detect(sniffed, sniffed.length);
                java.nio.charset.Charset cs = d.charset();
                if (!cs.equals(java.nio.charset.StandardCharsets.UTF_16LE) && !cs.equals(java.nio.charset.StandardCharsets.UTF_16BE)) {
                    all.skipNBytes(d.bomLength());
                    TextLines.ByteWindow lines = window ? TextLines.byteWindow(item.path(), cs, (int) maxHead, (int) maxTail, maxChars) : null;
                    SharedLineScan.Result r = SharedLineScan.read(new ParseInput(item.path(), type, item.size(), () -> {
                        throw new IOException("an artifact's bytes are read once; the shared scan reads them");
                    }), all, cs, parsers, lines);
                    List<Future<ParseResult>> parsed = new ArrayList<>();
                    r.results().forEach(p -> parsed.add(java.util.concurrent.CompletableFuture.completedFuture(p)));
                    Future<TextLines.Window> kept = lines == null ? null : r.windowFailed()
                            ? java.util.concurrent.CompletableFuture.failedFuture(new IOException("the text window failed"))
                            : java.util.concurrent.CompletableFuture.completedFuture(lines.finish());
                    return finish(item, type, parsers, parsed, kept, in.bytesRead(), in.cut());
                }
                head = new byte[0];
                rest = all;
            }
            final byte[] first = head;
            final InputStream source = rest;
            ParseInput.Source[] sources = new ParseInput.Source[consumers];
            List<ChunkPipe> pipes = new ArrayList<>();
            if (consumers == 1) {
                boolean[] opened = {false};
                sources[0] = () -> {
                    if (opened[0]) {
                        throw new IOException("an artifact's bytes are read once; this reader opened them twice");
                    }
                    opened[0] = true;
                    return new SequenceInputStream(new ByteArrayInputStream(first), source);
                };
            } else {
                for (int i = 0; i < consumers; i++) {
                    ChunkPipe pipe = new ChunkPipe();
                    pipes.add(pipe);
                    sources[i] = once(pipe);
                }
            }
            ParseInput base = new ParseInput(item.path(), type, item.size(), sources.length > 0 ? sources[0] : () -> source);
            List<Future<ParseResult>> parsed = new ArrayList<>();
            Future<TextLines.Window> kept = null;
            if (consumers == 1) {
                // the common case for most files: no threads, the parser (or the window) reads the stream itself
                if (parsers.size() == 1) {
                    parsed.add(java.util.concurrent.CompletableFuture.completedFuture(Parsers.runSafely(parsers.getFirst(), base)));
                } else {
                    kept = java.util.concurrent.CompletableFuture.completedFuture(window(base, maxHead, maxTail, maxChars));
                }
            } else if (consumers > 1) {
                for (int i = 0; i < parsers.size(); i++) {
                    ArtifactParser p = parsers.get(i);
                    ParseInput input = new ParseInput(item.path(), type, item.size(), sources[i]);
                    ChunkPipe pipe = pipes.get(i);
                    parsed.add(threads.submit(() -> {
                        try {
                            return Parsers.runSafely(p, input);
                        } finally {
                            pipe.close();
                        }
                    }));
                }
                if (window) {
                    ParseInput input = new ParseInput(item.path(), type, item.size(), sources[consumers - 1]);
                    ChunkPipe pipe = pipes.get(consumers - 1);
                    kept = threads.submit(() -> {
                        try {
                            return window(input, maxHead, maxTail, maxChars);
                        } finally {
                            pipe.close();
                        }
                    });
                }
                pump(first, source, pipes);
            } else {
                source.transferTo(java.io.OutputStream.nullOutputStream()); // nothing reads it: still counted, for the budget
            }
            return finish(item, type, parsers, parsed, kept, in.bytesRead(), in.cut());
        }
    }

    /**
     * The paste forms to undo in an artifact of this type: in a program's output only (an event export's parser reads a
     * quoted event itself, an XML file's entities are its own, a listing's rows are not a console's).
     */
    private static PastedText.Form pastedForm(ArtifactType type, byte[] head) {
        if (type != ArtifactType.CONSOLE_LOG && type != ArtifactType.TEXT) {
            return PastedText.Form.NONE;
        }
        return PastedText.detect(head, head.length);
    }

    private static ParseInput.Source once(ChunkPipe pipe) {
        boolean[] opened = {false};
        return () -> {
            if (opened[0]) {
                throw new IOException("an artifact's bytes are read once; this parser opened them twice");
            }
            opened[0] = true;
            return pipe;
        };
    }

    // The one pass: every chunk goes to every consumer still reading.
    private static void pump(byte[] head, InputStream in, List<ChunkPipe> pipes) throws IOException {
        try {
            if (head.length > 0) {
                for (ChunkPipe p : pipes) {
                    p.offer(head);
                }
            }
            while (pipes.stream().anyMatch(p -> !p.closed())) {
                byte[] chunk = in.readNBytes(CHUNK);
                if (chunk.length == 0) {
                    break;
                }
                for (ChunkPipe p : pipes) {
                    p.offer(chunk);
                }
            }
        } finally {
            for (ChunkPipe p : pipes) {
                p.end();
            }
        }
    }

    /** The bytes the window's encoding is detected on (as {@link TextDecoding} does). */
    private static final int WINDOW_SNIFF = 64 * 1024;

    // UTF-8 and Windows-1252 are split into lines as bytes, and only kept lines become strings; UTF-16 is decoded first
    static TextLines.Window window(ParseInput input, long head, long tail, long maxChars) throws IOException {
        try (InputStream in = new java.io.BufferedInputStream(input.openBytes(), WINDOW_SNIFF + 1)) {
            in.mark(WINDOW_SNIFF + 1);
            byte[] sniffed = in.readNBytes(WINDOW_SNIFF);
            TextDecoding.Detected d = TextDecoding.detect(sniffed, sniffed.length);
            in.reset();
            java.nio.charset.Charset cs = d.charset();
            if (cs.equals(java.nio.charset.StandardCharsets.UTF_16LE) || cs.equals(java.nio.charset.StandardCharsets.UTF_16BE)) {
                BufferedReader text = TextDecoding.open(in);
                return TextLines.read(input.path(), text, (int) head, (int) tail, maxChars);
            }
            in.skipNBytes(d.bomLength());
            return TextLines.readBytes(input.path(), in, cs, (int) head, (int) tail, maxChars);
        }
    }

    private ArtifactRead finish(Item item, ArtifactType type, List<ArtifactParser> parsers, List<Future<ParseResult>> parsed,
                                java.util.concurrent.Future<TextLines.Window> kept, long bytesRead, BudgetedStream.Cut cut)
            throws IOException {
        ParseResult.Builder merged = new ParseResult.Builder();
        for (int i = 0; i < parsed.size(); i++) {
            ParseResult r;
            try {
                r = parsed.get(i).get();
            } catch (ExecutionException e) {
                r = new ParseResult(List.of(), List.of(new ParseProblem.ParserFailure(item.path(), parsers.get(i).name(),
                        String.valueOf(e.getCause()))));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted while reading " + item.path());
            }
            r.facts().forEach(merged::fact);
            r.problems().forEach(merged::problem);
        }
        List<TextLine> lines = List.of();
        if (kept != null) {
            try {
                TextLines.Window w = kept.get();
                lines = w.lines();
                linesLeft -= lines.size();
                charsLeft -= w.chars();
                if (lines.size() < w.linesSeen() && (linesLeft <= 0 || charsLeft <= 0)) {
                    hit("lines", item.path(), "kept " + lines.size() + " of " + w.linesSeen() + " lines of " + item.path()
                            + " for text matching: the bundle's text budget (" + budget.maxLinesKept() + " lines, "
                            + budget.maxKeptChars() + " characters) is spent");
                }
            } catch (ExecutionException e) {
                lines = List.of(); // an unreadable window costs the text matchers only; the facts stand
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new java.io.InterruptedIOException("interrupted while reading " + item.path());
            }
        } else if (TextLines.hasText(type) && (linesLeft <= 0 || charsLeft <= 0)) {
            hit("lines", item.path(), "kept no lines of " + item.path() + " for text matching: the bundle's text budget is spent");
        }
        bytesLeft -= bytesRead;
        if (cut == BudgetedStream.Cut.BYTES) {
            hit("bytes", item.path(), "read the first " + size(bytesRead) + " of " + item.path()
                    + " (" + size(item.size()) + "): the bundle's read budget of " + size(budget.maxBytes()) + " is spent");
            merged.problem(new ParseProblem.Truncated(item.path(), 0, "read the first " + size(bytesRead) + " only (read budget)"));
        } else if (cut == BudgetedStream.Cut.TIME) {
            hit("time", item.path(), "read the first " + size(bytesRead) + " of " + item.path()
                    + ": reading the bundle took longer than " + budget.maxTime().toSeconds() + " s");
            merged.problem(new ParseProblem.Truncated(item.path(), 0, "read the first " + size(bytesRead) + " only (time budget)"));
        }
        ParseResult result = merged.build();
        List<Fact> facts = result.facts();
        if (facts.size() > factsLeft) {
            hit("facts", item.path(), "kept " + Math.max(factsLeft, 0) + " of " + facts.size() + " facts read from " + item.path()
                    + ": the bundle's budget of " + budget.maxFacts() + " facts is spent");
            facts = facts.subList(0, (int) Math.max(factsLeft, 0));
        }
        factsLeft -= facts.size();
        return new ArtifactRead(item.path(), type.name(), status(parsers, facts, result.problems()), facts,
                result.problems(), lines, bytesRead);
    }

    private void hit(String kind, String artifact, String message) {
        // once per budget: after the first artifact it cuts, every later one is cut the same way
        if (hits.stream().noneMatch(h -> h.budget().equals(kind))) {
            hits.add(new BudgetHit(kind, artifact, message));
        }
    }

    static ParseStatus status(List<ArtifactParser> parsers, List<Fact> facts, List<ParseProblem> problems) {
        if (parsers.isEmpty()) {
            return ParseStatus.UNSUPPORTED;
        }
        if (problems.isEmpty()) {
            return ParseStatus.PARSED;
        }
        return facts.isEmpty() ? ParseStatus.FAILED : ParseStatus.PARTIAL;
    }

    private static String size(long bytes) {
        if (bytes < 0) {
            return "unknown size";
        }
        if (bytes < 1 << 20) {
            return String.format(Locale.ROOT, "%.0f KB", bytes / 1e3);
        }
        return bytes < 1L << 30 ? String.format(Locale.ROOT, "%.0f MB", bytes / 1e6) : String.format(Locale.ROOT, "%.1f GB", bytes / 1e9);
    }

    /** Returns the facts deduplicated; a convenience for callers that want the bundle's facts only. */
    public static List<Fact> factsOf(BundleFacts read) {
        return Facts.dedupe(read.facts());
    }
}
