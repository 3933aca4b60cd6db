// Constants web/build.mjs defines at bundle time (esbuild `define`).

// The version of the pinned `ai` package (tools/node_modules/ai), sent as x-ai-sdk-version.
declare const __AI_SDK_VERSION__: string;
