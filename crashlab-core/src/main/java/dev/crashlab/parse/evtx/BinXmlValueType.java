package dev.crashlab.parse.evtx;

/**
 * Names the BinXML substitution value types (MS-EVEN6 2.2.14 / libevtx "value type") and their fixed sizes.
 */
final class BinXmlValueType {

    static final int NULL = 0x00;
    static final int STRING = 0x01;
    static final int ANSI_STRING = 0x02;
    static final int INT8 = 0x03;
    static final int UINT8 = 0x04;
    static final int INT16 = 0x05;
    static final int UINT16 = 0x06;
    static final int INT32 = 0x07;
    static final int UINT32 = 0x08;
    static final int INT64 = 0x09;
    static final int UINT64 = 0x0a;
    static final int REAL32 = 0x0b;
    static final int REAL64 = 0x0c;
    static final int BOOL = 0x0d;
    static final int BINARY = 0x0e;
    static final int GUID = 0x0f;
    static final int SIZE_T = 0x10;
    static final int FILETIME = 0x11;
    static final int SYSTEMTIME = 0x12;
    static final int SID = 0x13;
    static final int HEX_INT32 = 0x14;
    static final int HEX_INT64 = 0x15;
    static final int EVT_HANDLE = 0x20;
    static final int BINXML = 0x21;
    static final int EVT_XML = 0x23;
    /** Set on the type byte of an array of the base type. */
    static final int ARRAY = 0x80;

    private BinXmlValueType() {}

    /** Returns the size of one element of a fixed-size type, or 0 for variable-size types. */
    static int fixedSize(int baseType) {
        return switch (baseType) {
            case INT8, UINT8 -> 1;
            case INT16, UINT16 -> 2;
            case INT32, UINT32, REAL32, BOOL, HEX_INT32 -> 4;
            case INT64, UINT64, REAL64, FILETIME, HEX_INT64 -> 8;
            case GUID, SYSTEMTIME -> 16;
            default -> 0;
        };
    }

    /** Returns a readable name of a type byte, for problems. */
    static String name(int type) {
        String base = switch (type & 0x7f) {
            case NULL -> "null";
            case STRING -> "string";
            case ANSI_STRING -> "ansi-string";
            case INT8 -> "int8";
            case UINT8 -> "uint8";
            case INT16 -> "int16";
            case UINT16 -> "uint16";
            case INT32 -> "int32";
            case UINT32 -> "uint32";
            case INT64 -> "int64";
            case UINT64 -> "uint64";
            case REAL32 -> "real32";
            case REAL64 -> "real64";
            case BOOL -> "bool";
            case BINARY -> "binary";
            case GUID -> "guid";
            case SIZE_T -> "size_t";
            case FILETIME -> "filetime";
            case SYSTEMTIME -> "systemtime";
            case SID -> "sid";
            case HEX_INT32 -> "hex-int32";
            case HEX_INT64 -> "hex-int64";
            case EVT_HANDLE -> "evt-handle";
            case BINXML -> "binxml";
            case EVT_XML -> "evt-xml";
            default -> "type 0x" + Integer.toHexString(type & 0x7f);
        };
        return (type & ARRAY) != 0 ? base + "[]" : base;
    }
}
