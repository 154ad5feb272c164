package dev.crashlab.diagnose;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.crashlab.fact.Facts;
import dev.crashlab.fact.SourceRef;
import java.util.List;

/**
 * Writes a diagnosis in the JSON shape of issue 5, shared by {@code crashlab diagnose --json} and the API:
 * {@code {"verdict","equals":[ids],"hypotheses":[{"id","title","category","strength","confidence","evidence":[{"text","weight","specific","source":{...},"sources":[...]}],"against":[...]}],"ask":[...],"compat":[...],"notes":[...],"kbFingerprint"}}.
 * {@code verdict} is {@code diagnosed}, {@code weak} or {@code no-evidence}; {@code strength} is {@code strong},
 * {@code moderate}, {@code weak} or {@code none}.
 */
public final class DiagnosisJson {

    private DiagnosisJson() {}

    /** The diagnosis as a JSON tree. */
    public static ObjectNode toJson(Diagnosis d) {
        ObjectMapper m = Facts.json();
        ObjectNode root = m.createObjectNode();
        root.put("verdict", d.verdict().written());
        ArrayNode equals = root.putArray("equals");
        d.equals().forEach(equals::add);
        ArrayNode hs = root.putArray("hypotheses");
        int rank = 0;
        for (Hypothesis h : d.hypotheses()) {
            ObjectNode o = hs.addObject();
            o.put("id", h.id());
            o.put("title", h.title());
            o.put("category", h.category());
            o.put("strength", h.shownStrength(d, rank++).written()); // never "strong" where the verdict does not back it
            o.put("confidence", h.confidence());
            o.put("score", h.score());
            evidence(o.putArray("evidence"), h.evidence());
            evidence(o.putArray("against"), h.against());
        }
        ArrayNode ask = root.putArray("ask");
        for (Ask a : d.ask()) {
            ObjectNode o = ask.addObject();
            o.put("artifact", a.artifact());
            o.put("why", a.why());
            ArrayNode between = o.putArray("between");
            a.between().forEach(between::add);
        }
        ArrayNode compat = root.putArray("compat");
        for (Diagnosis.CompatView c : d.compat()) {
            ObjectNode o = compat.addObject();
            o.put("check", c.check());
            o.put("result", c.result());
            o.put("explanation", c.explanation());
            sources(o.putArray("sources"), c.sources());
        }
        ArrayNode notes = root.putArray("notes");
        d.notes().forEach(notes::add);
        root.put("kbFingerprint", d.kbFingerprint());
        root.put("otherEventCount", d.otherEventCount());
        sources(root.putArray("otherEvents"), d.otherEvents());
        return root;
    }

    private static void evidence(ArrayNode out, List<Evidence> list) {
        for (Evidence e : list) {
            ObjectNode o = out.addObject();
            o.put("matcher", e.matcher());
            o.put("text", e.text());
            o.put("weight", e.weight());
            o.put("specific", e.specific());
            o.put("context", e.context());
            if (e.sources().isEmpty()) {
                o.putNull("source");
            } else {
                source(o.putObject("source"), e.sources().getFirst());
            }
            sources(o.putArray("sources"), e.sources());
        }
    }

    private static void sources(ArrayNode out, List<SourceRef> list) {
        list.forEach(s -> source(out.addObject(), s));
    }

    private static void source(ObjectNode o, SourceRef s) {
        o.put("artifact", s.artifact());
        o.put("line", s.line());
        o.put("text", s.text());
    }
}
