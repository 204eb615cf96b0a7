/** `agent-server --help`, and what a command-line mistake is printed with. */
export const USAGE = `Usage: agent-server <command> [options]

Commands:
  dev       Run the server for development (SQLite by default, pretty logs, dev-only routes)
  serve     Run the server for production (JSON logs, binds 0.0.0.0:8123 like \`langgraph up\`)
  migrate   Open the selected storage, apply pending schema migrations, and exit
  snapshot export --out <file> [--decrypt]
            Write the whole selected storage to a snapshot file (JSON Lines); with
            LANGGRAPH_AES_KEY set every entry is sealed, unless --decrypt
  snapshot import --in <file>
            Import a snapshot file into the selected storage (never overwrites; re-running skips all)
  store reindex
            Embed every store item again with langgraph.json store.index (after changing its
            embed, dims or fields), in batches, and record the new index; semantic searches
            answer 409 until it has run
  keys rotate
            Re-seal everything stored with LANGGRAPH_AES_KEY (the old key in
            LANGGRAPH_AES_FALLBACK_KEYS), in batches, beside running servers; resumable; then
            forget the old keys (docs/security.md)
  import-dev [dir]
            Import what the official JS dev server kept in its .langgraph_api folder
            (default: ./.langgraph_api) into the selected storage
  new <dir> Write a new project into <dir> (a new or empty folder): a graph that answers
            without an LLM, package.json, langgraph.json, README
  dockerfile [-o <file>] [--force]
            Write a Dockerfile and .dockerignore for the project of --config
            (default: Dockerfile beside langgraph.json)
  compose [-o <file>] [--force]
            Write a compose file for the project of --config: PostgreSQL, a one-off migrate
            and two API processes (default: compose.yaml beside langgraph.json)

Options:
  -c, --config <path>      langgraph.json of the project, or its folder (default: ./langgraph.json)
  -h, --host <host>        Address to bind (dev: 127.0.0.1, serve: 0.0.0.0)
  -p, --port <port>        Port to bind, 0 picks a free one (dev: 2024; serve: $PORT, else 8123)
  --grpc-port <port>       Also serve A2A over gRPC on this port of --host, 0 picks a free one
                           (default: langgraph.json a2a.grpc_port, else off)
  --storage <kind>         sqlite | memory | postgres (default: sqlite), or a driver module of your own:
                           ./path/driver.ts:export (a Storage, or a function returning one)
  --database-url <url>     PostgreSQL URL (default: $POSTGRES_URL, then $DATABASE_URI, then $POSTGRES_URI)
  --database-schema <name> PostgreSQL schema holding the tables (default: public)
  --database-wait <seconds>
                           At start-up, how long to keep retrying while PostgreSQL cannot be reached
                           (not up yet, restarting) before exiting with code 2; 0 tries once
                           (default: $AGENT_SERVER_DATABASE_WAIT, else 60)
  --data-dir <dir>         Folder of the SQLite file and the schema cache, or given to a custom driver
                           (default: .agent-server beside langgraph.json)
  --workers <n>            Runs executed concurrently by this process (default: $N_JOBS_PER_WORKER, else 10)
  -n, --n-jobs-per-worker <n>
                           The same as --workers (the name \`langgraphjs dev\` uses)
  --poll-interval <ms>     How often idle workers look for work and waiters check runs of other
                           processes, in case a signal was lost (default: 1000; 5000 on PostgreSQL,
                           whose LISTEN/NOTIFY wakes them at once)
  --log-format <format>    pretty | json (dev: pretty, serve: json)
  --grace-period <seconds> On SIGINT/SIGTERM, how long running runs may finish before they are
                           handed back to the queue, to resume from their checkpoint (default: 10)
  --drain-timeout <seconds>
                           After the grace period, how long a run's current step may take to end
                           before the run is handed back mid-step (default: 5)
  --run-timeout <seconds>  A run still executing after this long ends with status timeout (its A2A
                           task FAILED) and frees its worker; 0 for no limit (default:
                           $BG_JOB_TIMEOUT_SECS, else langgraph.json run_timeout, else 3600)
  --max-body-size <bytes>  Largest request body; larger ones answer 413 (default: langgraph.json
                           http.max_body_size, else 26214400 = 25 MiB)
  --no-reload              dev: do not restart the server when a project file changes
  --inspector, --no-inspector
                           Serve the inspector page at /inspector, or not (default: langgraph.json
                           http.inspector, else on in dev and off in serve)
  --snapshot <file>        dev/serve with --storage memory: start from this snapshot file
  --snapshot-save          with --snapshot: write the memory store back to the file on SIGINT/SIGTERM
  -o, --out <file>         snapshot export: the snapshot file; dockerfile, compose: the file to write
  --in <file>              snapshot import: the snapshot file
  --force                  dockerfile, compose: overwrite the files if they exist
  --no-browser             Accepted for \`langgraphjs dev\` compatibility (no browser is ever opened)
  --help                   Show this help
  -v, --version            Show the version

Environment (a flag always wins over a variable):
  POSTGRES_URL, DATABASE_URI, POSTGRES_URI
                           The PostgreSQL URL of --storage postgres when --database-url is not
                           given, the first one set in this order (DATABASE_URI and POSTGRES_URI are
                           the official LangGraph container's names)
  AGENT_SERVER_DATABASE_WAIT
                           Seconds to wait for PostgreSQL at start-up when --database-wait is not given
  N_JOBS_PER_WORKER        The worker count when neither --workers nor -n is given
  BG_JOB_TIMEOUT_SECS      The run time limit when --run-timeout is not given (the official
                           container's name)
  PORT                     serve: the port when --port is not given (dev keeps 2024, where the
                           SDK and Studio look)

\`langgraphjs dev\` command lines work as they are: -p, -h, -c, -n, --no-browser (--tunnel is not supported).
`;
