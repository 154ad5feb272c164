package dev.crashlab.parse;

import dev.crashlab.sniff.ArtifactType;
import java.io.IOException;
import java.util.Set;

/**
 * Reads one format into facts.
 *
 * <p>NOTE: implementations are small {@code final} classes registered in {@link Parsers}. They must not
 * throw on bad input (report a {@link ParseProblem} instead), must stream (memory bounded by a line or a
 * record, not the file: logs reach gigabytes), and must bound regex work on hostile lines.
 * An {@link IOException} is for the disk failing, not for bad bytes.
 */
public interface ArtifactParser {

    /** A stable, kebab-case name (e.g. {@code nvidia-smi-xml}); also the fixture folder's name. */
    String name();

    /** The artifact types this parser reads. */
    Set<ArtifactType> accepts();

    /** Reads the artifact into facts. */
    ParseResult parse(ParseInput input) throws IOException;
}
