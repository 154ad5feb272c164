package dev.crashlab.parse.evtx;

import java.util.List;

/**
 * Fills template substitutions with a record's values, turning parsed {@link BinXmlNode}s into
 * {@link EvtxElement}s.
 *
 * <p>NOTE: an optional substitution whose value is NULL drops the attribute it would fill (as Windows
 * renders it). The number of elements expanded per record is capped, so templates nesting templates
 * cannot blow up.
 */
final class BinXmlExpander {

    /** The most elements one record may expand to. */
    static final int MAX_ELEMENTS = 100_000;

    private final List<String> notes;
    private int elements;
    private boolean missingValueNoted;

    BinXmlExpander(List<String> notes) {
        this.notes = notes;
    }

    /** Expands {@code nodes} (with {@code values} for their substitutions) into {@code parent}. */
    void expand(List<BinXmlNode> nodes, List<EvtxValue> values, EvtxElement parent, int depth) throws EvtxFormatException {
        if (depth > BinXmlParser.MAX_DEPTH) {
            throw new EvtxFormatException(0, "template values nested deeper than " + BinXmlParser.MAX_DEPTH + " levels");
        }
        for (BinXmlNode node : nodes) {
            switch (node) {
                case BinXmlNode.Element e -> {
                    EvtxValue array = arrayContent(e, values);
                    if (array == null) {
                        parent.addChild(element(e, values, depth));
                    } else {
                        // Windows writes an array filling an element as that element repeated, once per item
                        for (String item : array.items()) {
                            EvtxElement one = element(new BinXmlNode.Element(e.name(), e.attributes(), List.of()), values, depth);
                            one.addText(item);
                            parent.addChild(one);
                        }
                    }
                }
                case BinXmlNode.Text t -> parent.addText(t.text());
                case BinXmlNode.Markup m -> parent.addMarkup(m);
                case BinXmlNode.Substitution s -> {
                    EvtxValue v = value(s, values);
                    if (v.xml() != null) {
                        expand(v.xml(), List.of(), parent, depth + 1);
                    } else {
                        parent.addText(v.text());
                    }
                }
                case BinXmlNode.TemplateInstance ti -> expand(ti.definition().nodes(), ti.values(), parent, depth + 1);
            }
        }
    }

    // The array value that is an element's only content, or null.
    private EvtxValue arrayContent(BinXmlNode.Element e, List<EvtxValue> values) {
        if (e.children().size() == 1 && e.children().getFirst() instanceof BinXmlNode.Substitution s
                && s.index() < values.size()) {
            EvtxValue v = values.get(s.index());
            return v.items() != null && !v.items().isEmpty() ? v : null;
        }
        return null;
    }

    private EvtxElement element(BinXmlNode.Element e, List<EvtxValue> values, int depth) throws EvtxFormatException {
        if (++elements > MAX_ELEMENTS) {
            throw new EvtxFormatException(0, "record expands to more than " + MAX_ELEMENTS + " elements");
        }
        EvtxElement out = new EvtxElement(e.name());
        for (BinXmlNode.Attribute a : e.attributes()) {
            String v = attributeValue(a.value(), values);
            if (v != null) {
                out.addAttribute(a.name(), v);
            }
        }
        expand(e.children(), values, out, depth + 1);
        return out;
    }

    // The attribute's text, or null when it is made only of optional substitutions without a value.
    private String attributeValue(List<BinXmlNode> parts, List<EvtxValue> values) {
        if (parts.size() == 1) {
            BinXmlNode only = parts.getFirst();
            if (only instanceof BinXmlNode.Text t) {
                return t.text();
            }
            if (only instanceof BinXmlNode.Substitution s) {
                EvtxValue v = value(s, values);
                return s.optional() && v.isNull() ? null : attributeText(v);
            }
        }
        StringBuilder sb = new StringBuilder();
        boolean onlyEmptyOptional = !parts.isEmpty();
        for (BinXmlNode p : parts) {
            switch (p) {
                case BinXmlNode.Text t -> {
                    sb.append(t.text());
                    onlyEmptyOptional = false;
                }
                case BinXmlNode.Markup m -> {
                    sb.append(m.text());
                    onlyEmptyOptional = false;
                }
                case BinXmlNode.Substitution s -> {
                    EvtxValue v = value(s, values);
                    if (!(s.optional() && v.isNull())) {
                        onlyEmptyOptional = false;
                    }
                    sb.append(attributeText(v));
                }
                default -> onlyEmptyOptional = false;
            }
        }
        return onlyEmptyOptional ? null : sb.toString();
    }

    private static String attributeText(EvtxValue v) {
        if (v.xml() == null) {
            return v.text();
        }
        // BinXML in an attribute: keep its text content
        EvtxElement holder = new EvtxElement("v");
        try {
            new BinXmlExpander(new java.util.ArrayList<>()).expand(v.xml(), List.of(), holder, 1);
        } catch (EvtxFormatException e) {
            return "";
        }
        return holder.text();
    }

    private EvtxValue value(BinXmlNode.Substitution s, List<EvtxValue> values) {
        if (s.index() < values.size()) {
            return values.get(s.index());
        }
        if (!missingValueNoted) {
            missingValueNoted = true;
            notes.add("substitution " + s.index() + " has no value (the template instance has " + values.size() + ")");
        }
        return EvtxValue.NULL;
    }
}
