package dev.crashlab.parse.evtx;

import java.util.ArrayList;
import java.util.List;

/**
 * Is one element of a record's event XML after its template substitutions were filled in: a name,
 * attributes in order, and children (text, elements, or markup kept as written).
 */
public final class EvtxElement {

    private final String name;
    private final List<String> attributes = new ArrayList<>(4);
    private final List<Object> children = new ArrayList<>(4);

    EvtxElement(String name) {
        this.name = name;
    }

    /** The element's name. */
    public String name() {
        return name;
    }

    void addAttribute(String attributeName, String value) {
        if (attribute(attributeName) != null) {
            return; // a repeated attribute would make the XML malformed; the first one wins
        }
        attributes.add(attributeName);
        attributes.add(value);
    }

    void addText(String text) {
        if (!text.isEmpty()) {
            children.add(text);
        }
    }

    void addChild(EvtxElement child) {
        children.add(child);
    }

    void addMarkup(BinXmlNode.Markup markup) {
        children.add(markup);
    }

    /** Returns the value of the attribute {@code attributeName}, or null when it is absent. */
    public String attribute(String attributeName) {
        for (int i = 0; i < attributes.size(); i += 2) {
            if (attributes.get(i).equals(attributeName)) {
                return attributes.get(i + 1);
            }
        }
        return null;
    }

    /** Returns the attribute names and values, alternating. */
    public List<String> attributes() {
        return List.copyOf(attributes);
    }

    /** Returns the child elements. */
    public List<EvtxElement> elements() {
        List<EvtxElement> out = new ArrayList<>(children.size());
        for (Object c : children) {
            if (c instanceof EvtxElement e) {
                out.add(e);
            }
        }
        return out;
    }

    /** Returns the first child element named {@code childName}, or null. */
    public EvtxElement element(String childName) {
        for (Object c : children) {
            if (c instanceof EvtxElement e && e.name.equals(childName)) {
                return e;
            }
        }
        return null;
    }

    /** Returns the text of this element and its descendants, concatenated. */
    public String text() {
        if (children.size() == 1 && children.getFirst() instanceof String s) {
            return s;
        }
        StringBuilder sb = new StringBuilder();
        appendText(sb);
        return sb.toString();
    }

    private void appendText(StringBuilder sb) {
        for (Object c : children) {
            if (c instanceof String s) {
                sb.append(s);
            } else if (c instanceof EvtxElement e) {
                e.appendText(sb);
            } else if (c instanceof BinXmlNode.Markup m) {
                sb.append(m.text());
            }
        }
    }

    /** Returns whether the element has no children. */
    public boolean isEmpty() {
        return children.isEmpty();
    }

    /** Appends this element as XML (one line, no indentation). */
    void appendXml(StringBuilder sb) {
        sb.append('<').append(name);
        for (int i = 0; i < attributes.size(); i += 2) {
            sb.append(' ').append(attributes.get(i)).append("=\"");
            XmlText.escape(sb, attributes.get(i + 1), true);
            sb.append('"');
        }
        if (children.isEmpty()) {
            sb.append("/>");
            return;
        }
        sb.append('>');
        for (Object c : children) {
            if (c instanceof String s) {
                XmlText.escape(sb, s, false);
            } else if (c instanceof EvtxElement e) {
                e.appendXml(sb);
            } else if (c instanceof BinXmlNode.Markup m) {
                sb.append(m.xml());
            }
        }
        sb.append("</").append(name).append('>');
    }

    /** Renders this element as XML on one line. */
    public String toXml() {
        StringBuilder sb = new StringBuilder(1024);
        appendXml(sb);
        return sb.toString();
    }
}
