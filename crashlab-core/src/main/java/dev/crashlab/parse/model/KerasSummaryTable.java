package dev.crashlab.parse.model;

import dev.crashlab.parse.ParseInput;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the rows of {@code model.summary()} tables from text, line by line: Keras 2 tables
 * ({@code Layer (type)  Output Shape  Param #}, with {@code ___} or blank spacer rows), Keras 3 box tables
 * ({@code ┏━━}, {@code │} cells), with layer cells wrapped onto a second line, padding collapsed to single
 * spaces, and tables pasted inside {@code #} comments or docstrings.
 *
 * <p>NOTE: a table starts at its {@code Layer (type)} header and ends at {@code Total params}, a box's
 * bottom edge, or the start of the next table; each table's rows are one list, so two summaries in one file
 * stay two models.
 */
final class KerasSummaryTable {

    /** {@code (None, 28, 28, 1)}, {@code [(None, 28, 28, 1)]}, {@code (None, 1156)}. */
    private static final String SHAPE = "\\[?\\(\\s{0,4}(?:None|\\d{1,10})?(?:\\s{0,4},\\s{0,4}(?:None|\\d{1,10})){0,15}\\s{0,4},?\\s{0,4}\\)";
    private static final Pattern ROW = Pattern.compile(
            "^(?<cell>\\S.{0,200}?)\\s{1,80}(?<shape>" + SHAPE + ")(?:,\\s{0,4}" + SHAPE + "){0,8}\\]?"
                    + "(?:\\s{1,80}(?<params>\\d[\\d,]{0,20})(?<rest>\\s.{0,2000})?)?\\s*$");
    private static final Pattern SHAPE_ONLY = Pattern.compile(SHAPE);
    private static final Pattern NAME_TYPE = Pattern.compile("^(?<name>\\S{1,200}?)\\s{0,4}\\((?<type>[^()]{0,80})\\)?\\s*$");
    private static final Pattern CONNECTED = Pattern.compile("([A-Za-z_][\\w./-]{0,200})\\[\\d{1,6}\\]\\[\\d{1,6}\\]");
    private static final Pattern NUMBER = Pattern.compile("\\d{1,10}|None");

    private final ParseInput input;
    private final List<List<SummaryRow>> tables = new ArrayList<>();
    private List<SummaryRow> rows;
    /** The last row while its layer cell may continue on the next line. */
    private PendingRow pending;

    /** A row whose layer cell is not closed yet (a wrapped {@code name (Type}). */
    private static final class PendingRow {
        String cell;
        List<Integer> shape;
        Long params;
        String rest;
        long line;
        String text;
    }

    KerasSummaryTable(ParseInput input) {
        this.input = input;
    }

    /** Takes the next line. */
    /** Tells whether a table is open: then every line matters; else only a header does. */
    boolean inTable() {
        return rows != null;
    }

    void line(long number, String raw) {
        String t = uncomment(raw);
        if (t.contains("Layer (type)") && t.contains("Output Shape")) {
            flush();
            rows = new ArrayList<>();
            tables.add(rows);
            return;
        }
        if (rows == null) {
            return;
        }
        if (t.startsWith("Total params") || t.startsWith("└") || t.startsWith("Trainable params")) {
            flush();
            rows = null;
            return;
        }
        boolean box = t.startsWith("│") || t.startsWith("┃");
        if (box) {
            boxRow(number, raw, t);
            return;
        }
        if (t.isEmpty() || t.startsWith("___") || t.startsWith("===") || t.startsWith("---") || t.startsWith("┡")
                || t.startsWith("┏") || t.startsWith("├")) {
            if (!t.isEmpty()) {
                flush();
            }
            return;
        }
        Matcher m = ROW.matcher(t);
        if (m.matches()) {
            flush();
            PendingRow p = new PendingRow();
            p.cell = m.group("cell").strip();
            p.shape = shape(m.group("shape"));
            p.params = params(m.group("params"));
            p.rest = m.group("rest");
            p.line = number;
            p.text = raw.strip();
            pending = p;
            if (closed(p.cell)) {
                flush();
            }
            return;
        }
        if (pending != null && !closed(pending.cell)) {
            // the wrapped rest of the layer cell: the text before the next column gap
            String part = t.split("\\s{2,}", 2)[0];
            pending.cell = pending.cell + part;
            pending.text = pending.text + "\n" + raw.strip();
            flush();
        }
    }

    /** A Keras 3 box row: cells between {@code │}; a row with only a layer cell continues the previous one. */
    private void boxRow(long number, String raw, String t) {
        String[] cells = t.substring(1).split("[│┃]", -1);
        if (cells.length < 3) {
            return;
        }
        String cell = cells[0].strip();
        String shapeText = cells[1].strip();
        String paramText = cells[2].strip();
        if (shapeText.isEmpty() && paramText.isEmpty()) {
            if (pending != null && !cell.isEmpty()) {
                pending.cell = pending.cell + (pending.cell.endsWith("(") || cell.startsWith(")") ? "" : " ") + cell;
                pending.text = pending.text + "\n" + raw.strip();
            }
            return;
        }
        if (cell.equals("Layer (type)")) {
            return;
        }
        Matcher s = SHAPE_ONLY.matcher(shapeText);
        flush();
        PendingRow p = new PendingRow();
        p.cell = cell;
        p.shape = s.find() ? shape(s.group()) : null;
        p.params = params(paramText);
        p.rest = cells.length > 3 ? cells[3] : null;
        p.line = number;
        p.text = raw.strip();
        pending = p;
    }

    /** Returns the tables read, each a list of rows. */
    List<List<SummaryRow>> finish() {
        flush();
        return tables;
    }

    private void flush() {
        if (pending == null || rows == null) {
            pending = null;
            return;
        }
        PendingRow p = pending;
        pending = null;
        Matcher nt = NAME_TYPE.matcher(p.cell);
        String name;
        String type;
        if (nt.matches()) {
            name = nt.group("name");
            type = nt.group("type").strip();
        } else {
            name = p.cell.split("\\s", 2)[0];
            type = null;
        }
        List<String> connected = new ArrayList<>();
        if (p.rest != null) {
            Matcher c = CONNECTED.matcher(p.rest);
            while (c.find() && connected.size() < 64) {
                connected.add(c.group(1));
            }
        }
        rows.add(new SummaryRow(name, type, p.shape, p.params, connected, input.at(p.line, p.text)));
    }

    private static boolean closed(String cell) {
        int open = cell.indexOf('(');
        return open < 0 || cell.indexOf(')', open) > 0;
    }

    /** Strips a Python comment marker and a REPL prompt, and surrounding blanks. */
    private static String uncomment(String raw) {
        String t = raw.strip();
        if (t.startsWith("#")) {
            t = t.substring(1).strip();
        }
        return t;
    }

    private static List<Integer> shape(String text) {
        List<Integer> out = new ArrayList<>();
        Matcher n = NUMBER.matcher(text);
        while (n.find() && out.size() < 16) {
            if (n.group().equals("None")) {
                out.add(null);
            } else {
                long v = Long.parseLong(n.group());
                out.add(v <= KerasConfig.MAX_DIM ? (int) v : null);
            }
        }
        return out;
    }

    private static Long params(String text) {
        if (text == null || text.isEmpty()) {
            return null;
        }
        String digits = text.replace(",", "");
        if (digits.isEmpty() || digits.length() > 15 || !digits.chars().allMatch(Character::isDigit)) {
            return null;
        }
        return Long.parseLong(digits);
    }
}
