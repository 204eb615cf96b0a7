/** Generative UI of the echo graph (langgraph.json `ui`), loaded by LoadExternalComponent. */
const Echoed = (props: { text: string }) => <blockquote className="echoed">{props.text}</blockquote>;

export default { echoed: Echoed };
