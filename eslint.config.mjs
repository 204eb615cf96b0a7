// Flat config for every project: ESLint's recommended rules plus typescript-eslint's (syntax-only, no type
// information, so it stays fast). Each project's `lint` target runs `eslint .` from its own folder and
// ESLint finds this file by walking up.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "**/node_modules/**",
      "**/dist/**",
      "**/.nx/**",
      "**/.conformance/**",
      "**/coverage/**",
      "**/.test-results/**",
      "**/.agent-server/**",
      // Generated from migrations/*.sql by `nx run storage-postgres:generate-migrations`.
      "libs/storage-postgres/src/migrations.generated.ts",
      // Deliberately does not type-check: the schema extraction tests read it as it is.
      "libs/engine/test/fixtures/schemas/type-error-graph.mts",
      // Data written by langgraph-cli dev, read by the import tests.
      "apps/server/test/support/langgraph-api-fixture/.langgraph_api/**",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: "latest",
      sourceType: "module",
      globals: {
        process: "readonly",
        console: "readonly",
        Buffer: "readonly",
        URL: "readonly",
        setTimeout: "readonly",
        clearTimeout: "readonly",
      },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrorsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
    },
  },
  {
    // Test code reads ad-hoc JSON responses as `any`; typing each one adds nothing.
    files: ["**/*.test.ts", "**/test/**/*.ts"],
    rules: { "@typescript-eslint/no-explicit-any": "off" },
  },
);
