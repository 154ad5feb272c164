package dev.crashlab.parse.evtx;

/**
 * Names the BinXML token bytes (MS-EVEN6 2.2.12; libevtx "Binary XML tokens"); the 0x40 bit on some of
 * them means "has attributes" (elements) or "more follow" (attributes, values).
 */
final class BinXmlToken {

    static final int EOF = 0x00;
    static final int OPEN_START_ELEMENT = 0x01;
    static final int CLOSE_START_ELEMENT = 0x02;
    static final int CLOSE_EMPTY_ELEMENT = 0x03;
    static final int END_ELEMENT = 0x04;
    static final int VALUE = 0x05;
    static final int ATTRIBUTE = 0x06;
    static final int CDATA_SECTION = 0x07;
    static final int CHAR_REF = 0x08;
    static final int ENTITY_REF = 0x09;
    static final int PI_TARGET = 0x0a;
    static final int PI_DATA = 0x0b;
    static final int TEMPLATE_INSTANCE = 0x0c;
    static final int NORMAL_SUBSTITUTION = 0x0d;
    static final int OPTIONAL_SUBSTITUTION = 0x0e;
    static final int FRAGMENT_HEADER = 0x0f;
    /** The "has attributes" / "more follow" flag. */
    static final int MORE = 0x40;

    private BinXmlToken() {}
}
