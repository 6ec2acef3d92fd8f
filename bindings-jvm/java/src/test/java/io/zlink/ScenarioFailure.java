package io.zlink;

/**
 * A scenario step did not give what the file says (the message says why). The runner prefixes
 * the step, then the language and the scenario, as the Rust and Python runners do.
 */
final class ScenarioFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ScenarioFailure(String why) {
        super(why);
    }

    ScenarioFailure(String why, Throwable cause) {
        super(why, cause);
    }
}
