package dev.crashlab.compat;

import dev.crashlab.kb.KbProblem;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One compat CSV file: a header, then rows, {@code #} lines as comments; every row must cite its
 * {@code source} (see {@code /work/prompts/compat-format.md}, mirrored in {@code kb-articles/README.md}).
 *
 * @param name the file's name
 * @param header the column names
 * @param rows the valid rows, each a column -> value map
 */
public record CsvTable(String name, List<String> header, List<Row> rows) {

    /**
     * One data row.
     *
     * @param values column -> value (trimmed; empty when the cell was empty)
     * @param line the 1-based line in the file
     */
    public record Row(Map<String, String> values, int line) {
        /** The value of a column, or "" when empty. */
        public String get(String column) {
            return values.getOrDefault(column, "");
        }
    }

    public CsvTable {
        header = List.copyOf(header);
        rows = List.copyOf(rows);
    }

    /** Parses a CSV text, reporting malformed rows and rows without a source as problems. */
    public static CsvTable parse(String name, String text, List<String> required, List<KbProblem> problems) {
        List<String> header = null;
        List<Row> rows = new ArrayList<>();
        int lineNo = 0;
        for (String line : text.lines().toList()) {
            lineNo++;
            if (line.isBlank() || line.stripLeading().startsWith("#")) {
                continue;
            }
            List<String> cells = split(line);
            if (header == null) {
                header = cells.stream().map(String::strip).toList();
                for (String r : required) {
                    if (!header.contains(r)) {
                        problems.add(new KbProblem(name, lineNo, "missing column '" + r + "' (header must have " + String.join(",", required) + ")"));
                    }
                }
                continue;
            }
            if (cells.size() != header.size()) {
                problems.add(new KbProblem(name, lineNo, "expected " + header.size() + " cells, found " + cells.size()));
                continue;
            }
            Map<String, String> values = new LinkedHashMap<>();
            for (int i = 0; i < header.size(); i++) {
                values.put(header.get(i), cells.get(i).strip());
            }
            if (values.getOrDefault("source", "").isBlank()) {
                problems.add(new KbProblem(name, lineNo, "row has no source (a URL, or a document and section)"));
                continue;
            }
            rows.add(new Row(values, lineNo));
        }
        if (header == null) {
            problems.add(new KbProblem(name, 0, "no header line"));
            header = List.of();
        }
        return new CsvTable(name, header, rows);
    }

    // RFC 4180 cells: commas separate, double quotes enclose, "" is a quote inside quotes.
    private static List<String> split(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    cur.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    cur.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                out.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        out.add(cur.toString());
        return out;
    }
}
