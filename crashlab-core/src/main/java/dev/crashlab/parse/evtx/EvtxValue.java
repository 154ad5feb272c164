package dev.crashlab.parse.evtx;

import java.util.List;

/**
 * Is one substitution value of a template instance: its type and its rendering as text, or, for BinXML
 * values (type 0x21), the nested nodes.
 *
 * @param type the value type byte (0x80 set for arrays)
 * @param text the value as Windows renders it in XML; empty for NULL
 * @param xml nested BinXML nodes for type 0x21, else null
 * @param items the elements of an array value (type bit 0x80), else null
 */
record EvtxValue(int type, String text, List<BinXmlNode> xml, List<String> items) {

    static final EvtxValue NULL = new EvtxValue(BinXmlValueType.NULL, "", null, null);

    EvtxValue(int type, String text, List<BinXmlNode> xml) {
        this(type, text, xml, null);
    }

    boolean isNull() {
        return type == BinXmlValueType.NULL || (xml == null && text.isEmpty());
    }
}
