/**
 * Reads Windows Event Viewer exports into {@code WindowsEvent} facts and the typed facts derived from them.
 *
 * <p>Four parsers, one per export shape: {@link dev.crashlab.parse.winevent.WindowsEventTextParser} (details
 * copies, {@code wevtutil /f:text}, {@code Format-List}, bare messages), {@link
 * dev.crashlab.parse.winevent.WindowsEventXmlParser}, {@link dev.crashlab.parse.winevent.WindowsEventCsvParser}
 * and {@link dev.crashlab.parse.winevent.WindowsEventTabParser}. Each builds one {@code WindowsEvent} per event
 * and hands it, with the lines it came from, to {@link dev.crashlab.parse.winevent.WindowsEventTyping}, which
 * derives {@code ApplicationFault}, {@code WerReport}, {@code DisplayDriverEvent}, {@code KernelPowerEvent},
 * {@code BugCheckEvent} and {@code WheaEvent}; the binary {@code .evtx} reader calls the same typing.
 *
 * <p>Conventions the diagnosis can rely on: exception codes are lowercase {@code 0x} + 8 hex digits; report ids
 * are lowercase (an Application Error 1000 and its WER 1001 share one); a bare message's provider and event id are
 * inferred from its first line; every label in any language lives in {@code MessageField}. Unnamed event data
 * ({@code Data1}, {@code Data2} ...) is read in each event's documented positional order even beside the
 * {@code Binary} blob that real Application Error 1000, Application Hang 1002 and WER 1001 records carry
 * ({@code EvtxTypingCorpusTest} counts the typed records against libevtx's dumps of the real corpus). A real
 * Application log holds other programs' crashes too: {@code ApplicationFault.application} says whose.
 */
package dev.crashlab.parse.winevent;
