package dev.crashlab.parse.evtx;

import java.util.List;

/**
 * Is one node of a parsed BinXML token stream: what a template definition or a record body holds before
 * its substitutions are filled in.
 */
sealed interface BinXmlNode {

    /** An element (tokens 0x01/0x41 ... 0x02/0x03 ... 0x04). */
    record Element(String name, List<Attribute> attributes, List<BinXmlNode> children) implements BinXmlNode {}

    /** An attribute (token 0x06/0x46) and the nodes that make its value. */
    record Attribute(String name, List<BinXmlNode> value) {}

    /** Literal text (value token 0x05/0x45). */
    record Text(String text) implements BinXmlNode {}

    /** A placeholder for the template instance's value {@code index} (0x0d normal, 0x0e optional). */
    record Substitution(int index, int valueType, boolean optional) implements BinXmlNode {}

    /** Markup kept as written: character and entity references, CDATA, processing instructions. */
    record Markup(String xml, String text) implements BinXmlNode {}

    /** A template instance (token 0x0c): a definition and the values for its substitutions. */
    record TemplateInstance(EvtxTemplateDefinition definition, List<EvtxValue> values) implements BinXmlNode {}
}
