package dev.crashlab.parse.nvidiasmi;

import dev.crashlab.fact.GpuProcess;
import dev.crashlab.fact.SourceRef;
import dev.crashlab.parse.ArtifactParser;
import dev.crashlab.parse.ParseInput;
import dev.crashlab.parse.ParseProblem;
import dev.crashlab.parse.ParseResult;
import dev.crashlab.sniff.ArtifactType;
import java.io.BufferedReader;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Reads {@code nvidia-smi -q -x} XML (no DOCTYPE, and the v10 to v13 DTD schemas) into {@code GpuDevice}
 * and {@code GpuProcess} facts, streaming.
 *
 * <p>NOTE: the reader never loads the DTD nor expands external or declared entities (an uploaded file is
 * hostile until proven otherwise); a document that needs them, or ends early, keeps the facts read before
 * that point and adds a problem.
 */
public final class NvidiaSmiXmlParser implements ArtifactParser {

    private static final int MAX_TEXT = 4096;
    private static final int MAX_DEPTH = 64;
    private static final int MAX_DEVICES = 1024;
    private static final int MAX_PROCESSES = 100_000;

    @Override
    public String name() {
        return "nvidia-smi-xml";
    }

    @Override
    public Set<ArtifactType> accepts() {
        return Set.of(ArtifactType.NVIDIA_SMI_XML);
    }

    /** Returns a StAX factory with DTDs and external entities off. */
    static XMLInputFactory hardenedFactory() {
        XMLInputFactory f = XMLInputFactory.newDefaultFactory();
        f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        f.setProperty(XMLInputFactory.IS_REPLACING_ENTITY_REFERENCES, false);
        f.setProperty(XMLInputFactory.IS_COALESCING, true);
        f.setXMLResolver((publicId, systemId, base, ns) -> {
            throw new XMLStreamException("external resource refused: " + systemId);
        });
        return f;
    }

    @Override
    public ParseResult parse(ParseInput input) throws IOException {
        Run run = new Run(input);
        try (BufferedReader text = input.openText()) {
            XMLStreamReader xml = null;
            try {
                xml = hardenedFactory().createXMLStreamReader(text);
                run.read(xml);
            } catch (XMLStreamException | RuntimeException e) {
                // the JDK's parser reports bad XML as runtime exceptions too; bad input is a problem, not a failure
                run.broken(e);
            } finally {
                if (xml != null) {
                    try {
                        xml.close();
                    } catch (XMLStreamException ignored) {
                        // closing a reader over a broken document may fail again; the problem is already recorded
                    }
                }
            }
        }
        return run.finish();
    }

    /** The state of one parse. */
    private static final class Run {
        private final ParseInput input;
        private final ParseResult.Builder out = new ParseResult.Builder();
        private final List<DeviceDraft> devices = new ArrayList<>();
        private final List<String> path = new ArrayList<>();
        private final StringBuilder text = new StringBuilder();
        private String driver;
        private String cuda;
        private DeviceDraft current;
        private int gpuDepth = -1;
        private Long pid;
        private String processType;
        private String processName;
        private Long processMemory;
        private SourceRef processAt;
        private int processes;
        private boolean sawRoot;
        private long line = 1;

        Run(ParseInput input) {
            this.input = input;
        }

        void read(XMLStreamReader xml) throws XMLStreamException {
            int depthOverflow = 0;
            while (xml.hasNext()) {
                int event = xml.next();
                if (xml.getLocation() != null && xml.getLocation().getLineNumber() > 0) {
                    line = xml.getLocation().getLineNumber();
                }
                switch (event) {
                    case XMLStreamConstants.START_ELEMENT -> {
                        if (path.size() >= MAX_DEPTH) {
                            depthOverflow++;
                            continue;
                        }
                        start(xml);
                    }
                    case XMLStreamConstants.CHARACTERS, XMLStreamConstants.CDATA, XMLStreamConstants.SPACE -> {
                        if (depthOverflow == 0 && text.length() < MAX_TEXT) {
                            int room = MAX_TEXT - text.length();
                            text.append(xml.getTextCharacters(), xml.getTextStart(), Math.min(room, xml.getTextLength()));
                        }
                    }
                    case XMLStreamConstants.END_ELEMENT -> {
                        if (depthOverflow > 0) {
                            depthOverflow--;
                            continue;
                        }
                        end();
                    }
                    default -> { }
                }
            }
        }

        private void start(XMLStreamReader xml) {
            String name = xml.getLocalName();
            path.add(name);
            text.setLength(0);
            if (path.size() == 1 && name.equals("nvidia_smi_log")) {
                sawRoot = true;
            }
            if (path.size() == 2 && name.equals("gpu") && devices.size() < MAX_DEVICES) {
                current = new DeviceDraft(input.at(line, "<gpu id=\"" + attr(xml, "id") + "\">"));
                current.driverVersion = driver;
                current.driverCudaVersion = cuda;
                current.set("busId", attr(xml, "id"));
                devices.add(current);
                gpuDepth = path.size();
            }
            if (current != null && name.equals("process_info") && inGpu("processes")) {
                pid = null;
                processType = null;
                processName = null;
                processMemory = null;
                processAt = input.at(line, "<process_info>");
            }
        }

        private void end() {
            if (path.isEmpty()) {
                return;
            }
            String name = path.get(path.size() - 1);
            String value = text.toString().strip();
            text.setLength(0);
            if (path.size() == 2 && name.equals("driver_version")) {
                driver = SmiValues.text(value);
            } else if (path.size() == 2 && name.equals("cuda_version")) {
                cuda = SmiValues.text(value);
            } else if (current != null && path.size() > gpuDepth) {
                gpuField(name, value);
            }
            if (current != null && path.size() == gpuDepth && name.equals("gpu")) {
                current = null;
                gpuDepth = -1;
            }
            path.remove(path.size() - 1);
        }

        private void gpuField(String name, String value) {
            String section = path.get(gpuDepth);
            if (section.equals("mig_devices")) {
                return; // MIG instances are parts of the GPU, not GPUs of their own
            }
            String parent = path.get(path.size() - 2);
            boolean direct = path.size() == gpuDepth + 1;
            if (direct) {
                switch (name) {
                    case "product_name" -> current.set("name", value);
                    case "uuid" -> current.set("uuid", value);
                    case "compute_mode" -> current.set("computeMode", value);
                    case "performance_state" -> current.set("performanceState", value);
                    case "cuda_compute_capability", "compute_cap" -> current.set("computeCapability", value);
                    default -> { }
                }
                return;
            }
            switch (section) {
                case "pci" -> {
                    if (name.equals("pci_bus_id")) {
                        current.set("busId", value);
                    }
                }
                case "fb_memory_usage" -> {
                    if (name.equals("total")) {
                        current.set("memoryTotalMiB", value);
                    } else if (name.equals("used")) {
                        current.set("memoryUsedMiB", value);
                    }
                }
                case "driver_model" -> {
                    if (name.equals("current_dm")) {
                        current.set("driverModel", value);
                    }
                }
                case "mig_mode" -> {
                    if (name.equals("current_mig")) {
                        current.set("migMode", value);
                    }
                }
                case "temperature" -> {
                    if (name.equals("gpu_temp")) {
                        current.set("temperatureC", value);
                    }
                }
                case "power_readings", "gpu_power_readings" -> {
                    if (name.equals("power_draw") || name.equals("average_power_draw")
                            || name.equals("instant_power_draw")) {
                        current.set("powerDrawW", value);
                    } else if (name.equals("power_limit") || name.equals("current_power_limit")
                            || name.equals("enforced_power_limit")) {
                        current.set("powerLimitW", value);
                    }
                }
                case "clocks_throttle_reasons", "clocks_event_reasons" -> {
                    if (value.equals("Active")) {
                        current.throttle(name.replaceFirst("^clocks_(throttle|event)_reasons?_", ""));
                    }
                }
                case "ecc_errors" -> {
                    if (path.size() > gpuDepth + 1 && path.get(gpuDepth + 1).equals("volatile")
                            && (name.equals("dram_uncorrectable") || name.equals("sram_uncorrectable")
                                    || name.equals("sram_uncorrectable_parity") || name.equals("sram_uncorrectable_secded")
                                    || (parent.equals("double_bit") && name.equals("total")))) {
                        current.set("eccUncorrected", value);
                    }
                }
                case "retired_pages" -> {
                    if (name.equals("retired_count") && (parent.equals("multiple_single_bit_retirement")
                            || parent.equals("double_bit_retirement"))) {
                        current.set("retiredPages", value);
                    }
                }
                case "remapped_rows" -> {
                    if (name.equals("remapped_row_corr") || name.equals("remapped_row_unc")) {
                        current.set("retiredPages", value);
                    }
                }
                case "processes" -> processField(name, value);
                default -> { }
            }
        }

        private void processField(String name, String value) {
            if (processAt == null) {
                return;
            }
            switch (name) {
                case "pid" -> pid = SmiValues.whole(value);
                case "type" -> processType = SmiValues.text(value);
                case "process_name" -> processName = SmiValues.text(value);
                case "used_memory" -> processMemory = SmiValues.mebibytes(value);
                case "process_info" -> {
                    if (pid != null && processes++ < MAX_PROCESSES) {
                        out.fact(new GpuProcess(current.index, pid, processType, processName, processMemory,
                                List.of(processAt)));
                    }
                    processAt = null;
                }
                default -> { }
            }
        }

        private boolean inGpu(String section) {
            return gpuDepth > 0 && path.size() > gpuDepth && path.get(gpuDepth).equals(section);
        }

        private static String attr(XMLStreamReader xml, String name) {
            String v = xml.getAttributeValue(null, name);
            return v == null ? "" : v.length() > 64 ? v.substring(0, 64) : v;
        }

        void broken(Exception e) {
            String detail = String.valueOf(e.getMessage());
            if (detail.length() > 300) {
                detail = detail.substring(0, 300) + "…";
            }
            if (detail.contains("end of file") || detail.contains("EOF") || detail.contains("XML document structures must start and end")) {
                out.problem(new ParseProblem.Truncated(input.path(), line, "XML ends early: " + detail));
            } else {
                out.problem(new ParseProblem.MalformedInput(input.at(line, ""), "not well-formed XML: " + detail));
            }
        }

        ParseResult finish() {
            for (DeviceDraft d : devices) {
                out.fact(d.build());
            }
            if (!sawRoot && devices.isEmpty()) {
                out.problem(new ParseProblem.MalformedInput(input.at(1, ""), "no <nvidia_smi_log> document found"));
            }
            return out.build();
        }
    }
}
