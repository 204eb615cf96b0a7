// The repository's config, plus the browser's globals for the page's own modules (assets/, plain ES modules).
import root from "../../eslint.config.mjs";

const browser = Object.fromEntries(
  [
    "window",
    "document",
    "location",
    "sessionStorage",
    "localStorage",
    "fetch",
    "Headers",
    "Request",
    "Response",
    "TextDecoder",
    "AbortController",
    "crypto",
    "confirm",
    "addEventListener",
    "removeEventListener",
  ].map((name) => [name, "readonly"]),
);

export default [...root, { files: ["assets/**/*.js"], languageOptions: { globals: browser } }];
