package dev.crashlab.parse.evtx;

import static dev.crashlab.parse.evtx.BinXmlToken.*;

import java.util.ArrayList;
import java.util.List;

/**
 * Parses one record's BinXML token stream (and the template definitions and BinXML values it refers to)
 * into {@link BinXmlNode}s.
 *
 * <p>NOTE: one instance per record; positions are chunk-relative because names and templates are
 * referenced by chunk offset. Nesting is bounded ({@link #MAX_DEPTH}), so hostile input cannot recurse
 * without end.
 */
final class BinXmlParser {

    static final int MAX_DEPTH = 48;

    private final ChunkBytes b;
    private final EvtxNameCache names;
    private final EvtxTemplateCache templates;
    private final List<String> notes;
    private final int[] badText = new int[1];
    private int pos;
    private int depth;

    BinXmlParser(ChunkBytes bytes, EvtxNameCache names, EvtxTemplateCache templates, List<String> notes) {
        this.b = bytes;
        this.names = names;
        this.templates = templates;
        this.notes = notes;
    }

    /** Returns how many unpaired surrogates this record's text held (each replaced by U+FFFD). */
    int badTextCount() {
        return badText[0];
    }

    /**
     * Parses a record body or a BinXML value from {@code start} to {@code end}: one or more fragments,
     * each ended by an EOF token.
     */
    List<BinXmlNode> document(int start, int end) throws EvtxFormatException {
        int saved = pos;
        pos = start;
        List<BinXmlNode> out = new ArrayList<>(2);
        content(out, end, false);
        // several fragments in a row (seen in Shell-Core logs): go on while another fragment header follows
        while (pos + 4 <= end && b.u8(pos) == FRAGMENT_HEADER && b.u8(pos + 1) == 1 && b.u8(pos + 2) == 1) {
            content(out, end, false);
        }
        pos = saved;
        return out;
    }

    /** Reads tokens into {@code out} until EOF (fragment level) or the end of the enclosing element. */
    private void content(List<BinXmlNode> out, int limit, boolean inElement) throws EvtxFormatException {
        enter();
        while (true) {
            if (pos >= limit) {
                if (inElement) {
                    throw new EvtxFormatException(pos, "element content at 0x" + Integer.toHexString(pos) + ": ends before its end-element token");
                }
                break;
            }
            if (!inElement && !out.isEmpty() && limit - pos < 4) {
                break; // a stray byte or two after the last node, before the record's size copy (seen in real logs)
            }
            int at = pos;
            int token = b.u8(pos, limit, "token");
            switch (token) {
                case EOF -> {
                    pos++;
                    if (inElement) {
                        throw new EvtxFormatException(at, "end of fragment at 0x" + Integer.toHexString(at) + " inside an open element");
                    }
                    depth--;
                    return;
                }
                case FRAGMENT_HEADER -> {
                    b.need(pos, 4, limit, "fragment header");
                    pos += 4;
                }
                case OPEN_START_ELEMENT, OPEN_START_ELEMENT | MORE -> out.add(element(limit));
                case END_ELEMENT -> {
                    if (!inElement) {
                        throw new EvtxFormatException(at, "end-element token at 0x" + Integer.toHexString(at) + " outside an element");
                    }
                    pos++;
                    depth--;
                    return;
                }
                case VALUE, VALUE | MORE, CDATA_SECTION, CDATA_SECTION | MORE, CHAR_REF, CHAR_REF | MORE,
                     ENTITY_REF, ENTITY_REF | MORE, NORMAL_SUBSTITUTION, OPTIONAL_SUBSTITUTION -> out.add(valueNode(limit));
                case PI_TARGET -> out.add(processingInstruction(limit));
                case TEMPLATE_INSTANCE -> out.add(templateInstance(limit));
                default -> throw new EvtxFormatException(at, "unknown BinXML token 0x" + Integer.toHexString(token)
                        + " at 0x" + Integer.toHexString(at));
            }
        }
        depth--;
    }

    private void enter() throws EvtxFormatException {
        if (++depth > MAX_DEPTH) {
            throw new EvtxFormatException(pos, "BinXML nested deeper than " + MAX_DEPTH + " levels at 0x" + Integer.toHexString(pos));
        }
    }

    private BinXmlNode.Element element(int limit) throws EvtxFormatException {
        int start = pos;
        int token = b.u8(pos, limit, "element token");
        // token, dependency identifier (2), data size (4), name offset (4); XML forwarded by an event
        // collector (WEC) writes elements without the dependency identifier: tell them apart by where
        // the name offset points (the inline name right behind it, or a name read before)
        b.need(pos, 9, limit, "element header");
        int headerSize = 11;
        if (pos + 11 > limit || !plausibleName(b.u32(pos + 7), pos + 11)) {
            if (plausibleName(b.u32(pos + 5), pos + 9)) {
                headerSize = 9;
            }
        }
        b.need(pos, headerSize, limit, "element header");
        int nameOffset = b.offset32(pos + headerSize - 4, limit, "element name offset");
        pos += headerSize;
        String name = name(nameOffset, limit);
        List<BinXmlNode.Attribute> attributes = List.of();
        if ((token & MORE) != 0) {
            b.u32(pos, limit, "attribute list size");
            pos += 4;
            attributes = new ArrayList<>(4);
            while (pos < limit && (b.u8(pos, limit, "attribute token") & ~MORE) == ATTRIBUTE) {
                attributes.add(attribute(limit));
            }
        }
        int close = b.u8(pos, limit, "close-start-element token");
        if (close == CLOSE_EMPTY_ELEMENT) {
            pos++;
            return new BinXmlNode.Element(name, attributes, List.of());
        }
        if (close != CLOSE_START_ELEMENT) {
            throw new EvtxFormatException(pos, "element <" + name + "> at 0x" + Integer.toHexString(start)
                    + ": expected a close-start-element token at 0x" + Integer.toHexString(pos) + ", found 0x" + Integer.toHexString(close));
        }
        pos++;
        List<BinXmlNode> children = new ArrayList<>(4);
        content(children, limit, true);
        return new BinXmlNode.Element(name, attributes, children);
    }

    private BinXmlNode.Attribute attribute(int limit) throws EvtxFormatException {
        b.need(pos, 5, limit, "attribute header");
        int nameOffset = b.offset32(pos + 1, limit, "attribute name offset");
        pos += 5;
        String name = name(nameOffset, limit);
        List<BinXmlNode> value = new ArrayList<>(1);
        while (pos < limit) {
            int t = b.u8(pos, limit, "attribute value token");
            int base = t & ~MORE;
            boolean isValue = base == VALUE || base == CHAR_REF || base == ENTITY_REF
                    || t == NORMAL_SUBSTITUTION || t == OPTIONAL_SUBSTITUTION;
            if (!isValue) {
                break;
            }
            value.add(valueNode(limit));
        }
        return new BinXmlNode.Attribute(name, value);
    }

    /** Reads a value, CDATA, character or entity reference, or substitution token. */
    private BinXmlNode valueNode(int limit) throws EvtxFormatException {
        int at = pos;
        int token = b.u8(pos, limit, "value token");
        switch (token & ~MORE) {
            case VALUE -> {
                int type = b.u8(pos + 1, limit, "value type");
                if (type != BinXmlValueType.STRING) {
                    throw new EvtxFormatException(at, "value token at 0x" + Integer.toHexString(at) + ": unsupported value type "
                            + BinXmlValueType.name(type));
                }
                int chars = b.u16(pos + 2, limit, "value character count");
                b.need(pos + 4, 2 * chars, limit, "value characters");
                String text = Utf16Text.decode(b.array(), pos + 4, chars, badText);
                pos += 4 + 2 * chars;
                return new BinXmlNode.Text(text);
            }
            case CDATA_SECTION -> {
                int chars = b.u16(pos + 1, limit, "CDATA character count");
                b.need(pos + 3, 2 * chars, limit, "CDATA characters");
                String text = Utf16Text.decode(b.array(), pos + 3, chars, badText);
                pos += 3 + 2 * chars;
                return new BinXmlNode.Markup("<![CDATA[" + text.replace("]]>", "]]]]><![CDATA[>") + "]]>", text);
            }
            case CHAR_REF -> {
                int c = b.u16(pos + 1, limit, "character reference");
                pos += 3;
                String text = XmlText.isXmlChar(c) ? String.valueOf((char) c) : "\uFFFD";
                return new BinXmlNode.Markup(XmlText.isXmlChar(c) ? "&#" + c + ";" : "\uFFFD", text);
            }
            case ENTITY_REF -> {
                int nameOffset = b.offset32(pos + 1, limit, "entity name offset");
                pos += 5;
                String name = name(nameOffset, limit);
                return new BinXmlNode.Markup("&" + name + ";", entityText(name));
            }
            default -> {
                if (token == NORMAL_SUBSTITUTION || token == OPTIONAL_SUBSTITUTION) {
                    b.need(pos, 4, limit, "substitution");
                    int index = b.u16(pos + 1);
                    int type = b.array()[pos + 3] & 0xff;
                    pos += 4;
                    return new BinXmlNode.Substitution(index, type, token == OPTIONAL_SUBSTITUTION);
                }
                throw new EvtxFormatException(at, "unexpected token 0x" + Integer.toHexString(token) + " at 0x" + Integer.toHexString(at));
            }
        }
    }

    private static String entityText(String name) {
        return switch (name) {
            case "lt" -> "<";
            case "gt" -> ">";
            case "amp" -> "&";
            case "quot" -> "\"";
            case "apos" -> "'";
            default -> "";
        };
    }

    private BinXmlNode processingInstruction(int limit) throws EvtxFormatException {
        int nameOffset = b.offset32(pos + 1, limit, "PI target name offset");
        pos += 5;
        String target = name(nameOffset, limit);
        String data = "";
        if (pos < limit && b.u8(pos, limit, "PI data token") == PI_DATA) {
            int chars = b.u16(pos + 1, limit, "PI data character count");
            b.need(pos + 3, 2 * chars, limit, "PI data characters");
            data = Utf16Text.decode(b.array(), pos + 3, chars, badText);
            pos += 3 + 2 * chars;
        }
        return new BinXmlNode.Markup("<?" + target + (data.isEmpty() ? "" : " " + data.replace("?>", "? >")) + "?>", "");
    }

    private boolean plausibleName(long offset, int inlineAt) {
        return offset == inlineAt || (offset < b.length() && names.known((int) offset));
    }

    /** Reads a name reference: inline (defined right here, then skipped) or an offset to an earlier one. */
    private String name(int nameOffset, int limit) throws EvtxFormatException {
        if (nameOffset == pos) {
            b.need(pos, EvtxNameCache.HEADER_SIZE, limit, "inline name header");
            int size = names.sizeAt(pos);
            b.need(pos, size, limit, "inline name");
            String name = names.nameAt(pos);
            pos += size;
            return name;
        }
        return names.nameAt(nameOffset);
    }

    private BinXmlNode.TemplateInstance templateInstance(int limit) throws EvtxFormatException {
        int at = pos;
        b.need(pos, 10, limit, "template instance header");
        int definitionOffset = b.offset32(pos + 6, limit, "template definition offset");
        pos += 10;
        EvtxTemplateDefinition definition;
        if (definitionOffset == pos) {
            definition = definitionAt(definitionOffset);
            if (definition.end() > limit) {
                throw new EvtxFormatException(at, "template definition at 0x" + Integer.toHexString(definitionOffset)
                        + ": ends at 0x" + Integer.toHexString(definition.end()) + ", past the record end 0x" + Integer.toHexString(limit));
            }
            pos = definition.end();
        } else {
            definition = definitionAt(definitionOffset);
        }
        long count = b.u32(pos, limit, "substitution value count");
        pos += 4;
        if (count * 4 > limit - pos) {
            throw new EvtxFormatException(pos - 4, "template instance at 0x" + Integer.toHexString(at) + ": " + count
                    + " substitution values do not fit in the " + (limit - pos) + " bytes left");
        }
        int n = (int) count;
        int descriptors = pos;
        pos += 4 * n;
        List<EvtxValue> values = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int size = b.u16(descriptors + 4 * i);
            int type = b.array()[descriptors + 4 * i + 2] & 0xff;
            b.need(pos, size, limit, "substitution value " + i + " (" + BinXmlValueType.name(type) + ")");
            values.add(value(type, pos, size, i));
            pos += size;
        }
        return new BinXmlNode.TemplateInstance(definition, values);
    }

    private EvtxTemplateDefinition definitionAt(int offset) throws EvtxFormatException {
        EvtxTemplateDefinition cached = templates.get(offset);
        if (cached != null) {
            return cached;
        }
        int chunkEnd = b.length();
        b.need(offset, EvtxTemplateDefinition.HEADER_SIZE, chunkEnd, "template definition header");
        long dataSize = b.u32(offset + 20);
        int bodyStart = offset + EvtxTemplateDefinition.HEADER_SIZE;
        if (dataSize > chunkEnd - bodyStart) {
            EvtxFormatException e = new EvtxFormatException(offset, "template definition at 0x" + Integer.toHexString(offset)
                    + ": data size " + dataSize + " runs past the chunk end");
            templates.failed(offset, e);
            throw e;
        }
        templates.startParsing(offset);
        try {
            String guid = EvtxValues.guid(b.array(), offset + 4);
            List<BinXmlNode> nodes = document(bodyStart, bodyStart + (int) dataSize);
            EvtxTemplateDefinition d = new EvtxTemplateDefinition(offset, guid, (int) dataSize, nodes);
            templates.put(offset, d);
            return d;
        } catch (EvtxFormatException e) {
            EvtxFormatException wrapped = new EvtxFormatException(e.offset(), "template definition at 0x"
                    + Integer.toHexString(offset) + ": " + e.getMessage());
            templates.failed(offset, wrapped);
            throw wrapped;
        }
    }

    /** Decodes one substitution value. */
    private EvtxValue value(int type, int offset, int size, int index) throws EvtxFormatException {
        if (type == BinXmlValueType.BINXML) {
            if (size == 0) {
                return EvtxValue.NULL;
            }
            enter();
            List<BinXmlNode> nodes = document(offset, offset + size);
            depth--;
            return new EvtxValue(type, "", nodes);
        }
        int before = badText[0];
        List<String> items = null;
        String text;
        if ((type & BinXmlValueType.ARRAY) != 0) {
            items = EvtxValues.items(b.array(), type, offset, size, badText);
            text = items == null ? null : String.join(EvtxValues.ARRAY_SEPARATOR, items);
        } else {
            text = EvtxValues.render(b.array(), type, offset, size, badText);
        }
        if (text == null) {
            notes.add("substitution value " + index + " (" + BinXmlValueType.name(type) + ", " + size
                    + " bytes) at 0x" + Integer.toHexString(offset) + " is malformed; rendered as hex");
            text = EvtxValues.hex(b.array(), offset, size);
        }
        if (badText[0] > before) {
            notes.add("substitution value " + index + " at 0x" + Integer.toHexString(offset)
                    + " holds unpaired UTF-16 surrogates; replaced with U+FFFD");
        }
        return new EvtxValue(type, text, null, items);
    }
}
