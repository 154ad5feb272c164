package dev.crashlab.parse.evtx;

import java.util.HashMap;
import java.util.Map;

/**
 * Caches a chunk's template definitions by chunk offset, parsed once on first use; a definition that
 * failed to parse is remembered as failed, and one being parsed cannot refer to itself.
 */
final class EvtxTemplateCache {

    private final Map<Integer, Object> byOffset = new HashMap<>();
    private static final Object PARSING = new Object();

    /** Returns the cached definition, or null when it has not been parsed yet. */
    EvtxTemplateDefinition get(int offset) throws EvtxFormatException {
        Object o = byOffset.get(offset);
        if (o == PARSING) {
            throw new EvtxFormatException(offset, "template definition at 0x" + Integer.toHexString(offset) + " refers to itself");
        }
        if (o instanceof EvtxFormatException failed) {
            throw new EvtxFormatException(offset, failed.getMessage());
        }
        return (EvtxTemplateDefinition) o;
    }

    void startParsing(int offset) {
        byOffset.put(offset, PARSING);
    }

    void put(int offset, EvtxTemplateDefinition definition) {
        byOffset.put(offset, definition);
    }

    void failed(int offset, EvtxFormatException e) {
        byOffset.put(offset, e);
    }

    int size() {
        return (int) byOffset.values().stream().filter(v -> v instanceof EvtxTemplateDefinition).count();
    }
}
