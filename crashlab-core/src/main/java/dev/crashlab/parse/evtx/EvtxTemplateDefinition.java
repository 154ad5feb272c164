package dev.crashlab.parse.evtx;

import java.util.List;

/**
 * Is one template definition of a chunk: the XML skeleton records share, with numbered substitution
 * slots, parsed once and cached by its chunk offset.
 *
 * @param offset chunk-relative offset of the definition header
 * @param guid the template's GUID as written
 * @param dataSize bytes of BinXML after the 24-byte header
 * @param nodes the parsed skeleton
 */
record EvtxTemplateDefinition(int offset, String guid, int dataSize, List<BinXmlNode> nodes) {

    /** Bytes of the definition header (next offset, GUID, data size). */
    static final int HEADER_SIZE = 24;

    /** The chunk offset just past the definition. */
    int end() {
        return offset + HEADER_SIZE + dataSize;
    }
}
