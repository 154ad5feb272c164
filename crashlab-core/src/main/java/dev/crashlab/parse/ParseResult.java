package dev.crashlab.parse;

import dev.crashlab.fact.Fact;
import java.util.ArrayList;
import java.util.List;

/** What a parser read from one artifact: facts, and problems with the input. */
public record ParseResult(List<Fact> facts, List<ParseProblem> problems) {

    public ParseResult {
        facts = List.copyOf(facts);
        problems = List.copyOf(problems);
    }

    /** A result with nothing in it. */
    public static ParseResult empty() {
        return new ParseResult(List.of(), List.of());
    }

    /** Collects a parser's output as it goes. */
    public static final class Builder {
        private final List<Fact> facts = new ArrayList<>();
        private final List<ParseProblem> problems = new ArrayList<>();

        /** Adds a fact. */
        public Builder fact(Fact f) {
            facts.add(f);
            return this;
        }

        /** Adds a problem. */
        public Builder problem(ParseProblem p) {
            problems.add(p);
            return this;
        }

        /** Returns the result, with duplicate facts merged. */
        public ParseResult build() {
            return new ParseResult(dev.crashlab.fact.Facts.dedupe(facts), problems);
        }
    }
}
