// Tool declarations for code mode: call `await tools.NAME(input)`.
// Generated from the tools' JSON schemas; every call is still validated by the host.

/** What a watcher says of one changed file. */
type AppendFileOutput_EditDiagnostics = {
  /** The file, as the model writes paths. */
  path: string;
  /** Who says it (`clangd`). */
  source: string;
  /** The file's errors now, `path:line: message`, at most the watcher's limit. */
  errors: string[];
  /** Errors past those listed. */
  more?: number;
};

/** A file and its expected version. */
type ApplyPatch_ExpectedVersion = {
  /** The file. */
  path: string;
  /** From read_file or an edit. */
  version: string;
};

/** One file operation of the patch and its effect. */
type ApplyPatchOutput_FileChange = {
  /** The path as the patch named it. */
  path: string;
  /** What happened. */
  action: ApplyPatchOutput_ChangeKind;
  /** The new path of a moved file. */
  moved_to?: string | null;
  /** Lines added. */
  lines_added: number;
  /** Lines removed (`null` for a deleted link, or a deleted file too large to count). */
  lines_removed: number | null;
  /** Each hunk's place and match level (updates only). */
  hunks?: ApplyPatchOutput_HunkMatch[];
  /**
   * The version of the file this operation leaves (at `moved_to` for a move) once the whole
   * patch is applied: pass it as `expected_version` to the next edit. None for a delete.
   */
  version?: string | null;
};

/**
 * What happened to a file.
 * - `added`: `*** Add File:` created it.
 * - `updated`: `*** Update File:` changed it in place.
 * - `deleted`: `*** Delete File:` removed it.
 * - `moved`: `*** Update File:` with `*** Move to:` changed and renamed it.
 */
type ApplyPatchOutput_ChangeKind = "added" | "updated" | "deleted" | "moved";

/** Where one hunk applied and at which [`MatchLevel`]. */
type ApplyPatchOutput_HunkMatch = {
  /** The hunk's number in its file's section (1-based). */
  hunk: number;
  /** The line of the file (as it was before the patch, 1-based) where the hunk's lines start. */
  line: number;
  /** How loosely the hunk's lines had to be compared to be found. */
  level: ApplyPatchOutput_MatchLevel;
};

/**
 * How loosely a hunk's lines had to be compared to find them, strictest first.
 * - `exact`: Byte for byte.
 * - `trailing_whitespace`: Ignoring whitespace at the ends of lines.
 * - `surrounding_whitespace`: Ignoring whitespace at both ends of lines (indentation too).
 * - `typographic`: As the previous level, with typographic punctuation folded to ASCII: dashes to `-`, curly quotes to `'` and `"`, non-breaking and other odd spaces to ` `.
 */
type ApplyPatchOutput_MatchLevel = "exact" | "trailing_whitespace" | "surrounding_whitespace" | "typographic";

/** What a watcher says of one changed file. */
type ApplyPatchOutput_EditDiagnostics = {
  /** The file, as the model writes paths. */
  path: string;
  /** Who says it (`clangd`). */
  source: string;
  /** The file's errors now, `path:line: message`, at most the watcher's limit. */
  errors: string[];
  /** Errors past those listed. */
  more?: number;
};

/** Which calls `calls` lists. */
type Code_CallDirection = "incoming" | "outgoing";

/** One line of an answer: a place in a file and what is there. */
type CodeOutput_CodeItem = {
  /** The file, as the model writes paths (an absolute path for a file outside the roots). */
  path: string;
  /** The line (1-based). */
  line: number;
  /** The column (1-based, characters), when it matters. */
  column?: number | null;
  /**
   * What the text shows after `path:line: `: the source line, a symbol's kind and name,
   * a diagnostic's severity and message.
   */
  text: string;
};

/** What a watcher says of one changed file. */
type CreateFileOutput_EditDiagnostics = {
  /** The file, as the model writes paths. */
  path: string;
  /** Who says it (`clangd`). */
  source: string;
  /** The file's errors now, `path:line: message`, at most the watcher's limit. */
  errors: string[];
  /** Errors past those listed. */
  more?: number;
};

/** A file and its expected version. */
type DeleteFile_ExpectedVersion = {
  /** The file. */
  path: string;
  /** From read_file or an edit. */
  version: string;
};

/** What `edit_lines` does. */
type EditLines_LineOperation = "insert" | "delete" | "replace";

/** What a watcher says of one changed file. */
type EditLinesOutput_EditDiagnostics = {
  /** The file, as the model writes paths. */
  path: string;
  /** Who says it (`clangd`). */
  source: string;
  /** The file's errors now, `path:line: message`, at most the watcher's limit. */
  errors: string[];
  /** Errors past those listed. */
  more?: number;
};

/** How `glob` orders its files. */
type Glob_GlobSort = "path" | "modified";

/** What `grep` shows. */
type Grep_OutputMode = "content" | "files_with_matches" | "count";

/** Files a search left out. */
type GrepOutput_Skipped = {
  /** Binary files (a NUL byte). */
  binary: number;
  /** Files larger than the size limit. */
  too_large: number;
  /** Files that could not be read. */
  unreadable: number;
};

/** One root of the workspace as `list_projects` shows it. */
type ListProjectsOutput_Project = {
  /** The root's name: write paths in it as `name:path`. */
  name: string;
  /** Its absolute path on the host. */
  path: string;
  /** Whether tools may only read there. */
  read_only: boolean;
};

/** Which of the agent's prompts (or its name) to view or update. */
type PromptManager_PromptType = "system" | "conversation_consolidation" | "memory_management" | "name";

/** Which of the agent's prompts (or its name) to view or update. */
type PromptManagerOutput_PromptType = "system" | "conversation_consolidation" | "memory_management" | "name";

/** One file read. */
type ReadFileOutput_FileContent = {
  /** The path as shown to the model. */
  path: string;
  /**
   * The lines as they are in the file (each ending in a newline; a line longer than the
   * limit cut with a note), from `start_line` on. The text content numbers them like
   * `cat -n`; here they are bare, so a program gets the file's own text and the answer
   * costs no more than the text.
   */
  content: string;
  /** The first line returned (1-based). */
  start_line: number;
  /** The last line returned (`start_line - 1` when none was). */
  end_line: number;
  /** The file's line count, when known (a huge file read in part leaves it unknown). */
  total_lines: number | null;
  /**
   * The version of the whole file (the first 12 hex digits of the SHA-256 of its content):
   * pass it as `expected_version` to an edit. `null` for a file too large to edit.
   */
  version: string | null;
  /** Whether lines of the file were left out (after the range, or by a cap). */
  truncated: boolean;
  /** An estimate of the tokens of `content` (characters / 4). */
  tokens: number;
  /** What was left out and how to read on. */
  note?: string | null;
  /**
   * For an image or a PDF, its media type (`image/png`, `application/pdf`); absent for
   * text.
   */
  media_type?: string | null;
  /** For an image, what was sent (the image itself goes beside the text). */
  image?: ReadFileOutput_ImageInfo | null;
  /** For a PDF, the pages read (`"2-3"`); `content` holds their text. */
  pages?: string | null;
  /** For a PDF, its number of pages. */
  total_pages?: number | null;
};

/** The image `read_file` returned. */
type ReadFileOutput_ImageInfo = {
  /** Width in pixels, as sent. */
  width: number;
  /** Height in pixels, as sent. */
  height: number;
  /** Bytes sent. */
  bytes: number;
  /** The file's own width and height, when it was scaled down to be sent. */
  scaled_from?: number[] | null;
};

/** A path that could not be read. */
type ReadFileOutput_FailedRead = {
  /** The path as given. */
  path: string;
  /** The error's kind (`not_found`, `security_error`, `user_error`...). */
  error_type: string;
  /** What went wrong. */
  error: string;
};

/** What a watcher says of one changed file. */
type ReplaceInFileOutput_EditDiagnostics = {
  /** The file, as the model writes paths. */
  path: string;
  /** Who says it (`clangd`). */
  source: string;
  /** The file's errors now, `path:line: message`, at most the watcher's limit. */
  errors: string[];
  /** Errors past those listed. */
  more?: number;
};

/** Files a search left out. */
type SearchOutput_Skipped = {
  /** Binary files (a NUL byte). */
  binary: number;
  /** Files larger than the size limit. */
  too_large: number;
  /** Files that could not be read. */
  unreadable: number;
};

/** What a watcher says of one changed file. */
type UpdateFileOutput_EditDiagnostics = {
  /** The file, as the model writes paths. */
  path: string;
  /** Who says it (`clangd`). */
  source: string;
  /** The file's errors now, `path:line: message`, at most the watcher's limit. */
  errors: string[];
  /** Errors past those listed. */
  more?: number;
};

/** One step of the plan. */
type UpdatePlan_PlanStep = {
  /** What to do, in a short sentence. */
  step: string;
  /** `pending`, `in_progress` or `completed`. */
  status: UpdatePlan_StepStatus;
};

/** Where a step stands. */
type UpdatePlan_StepStatus = "pending" | "in_progress" | "completed";

/** One step of the plan. */
type UpdatePlanOutput_PlanStep = {
  /** What to do, in a short sentence. */
  step: string;
  /** `pending`, `in_progress` or `completed`. */
  status: UpdatePlanOutput_StepStatus;
};

/** Where a step stands. */
type UpdatePlanOutput_StepStatus = "pending" | "in_progress" | "completed";

/** One search result. */
type WebOutput_SearchResult = {
  /** The page's URL. */
  url: string;
  /** The page's title. */
  title: string;
  /** A short excerpt of the page. */
  snippet: string;
};

/** The results of a search (`type: "search_results"`). */
type WebOutput_SearchResults = {
  /** The query as given. */
  query: string;
  /** At most 10 results, best first. */
  results: WebOutput_SearchResult[];
  /**
   * How many results the search service reports in total (the number returned when the
   * service does not say).
   */
  total_results: number;
};

/** The readable text of a fetched page, or one window of it (`type: "fetched_page"`). */
type WebOutput_FetchedPage = {
  /**
   * The URL the content came from: the URL as given, or the last hop's URL when redirects
   * were followed.
   */
  url: string;
  /** The page as text: HTML turned into Markdown-like text, other text as sent. */
  content: string;
  /** When the page was fetched, RFC 3339 in UTC (`2024-12-30T10:00:00Z`). */
  fetched_at: string;
  /**
   * Whether the text goes on past this window (read on from `next_start_index`) or the body
   * was cut at the byte cap.
   */
  truncated: boolean;
  /** The character offset of `content` in the page's text. */
  start_index: number;
  /** Where the next window starts, when there is more text; pass it as `start_index`. */
  next_start_index?: number | null;
  /** The length of the page's whole text in characters. */
  total_chars: number;
  /** The media type the server sent (`text/html`), or the one guessed when it sent none. */
  content_type: string;
  /**
   * Whether the response body was longer than the byte cap and was cut there (text past the
   * cap cannot be read).
   */
  body_truncated?: boolean;
};

/** A redirect that was not followed (`type: "redirect"`). */
type WebOutput_Redirect = {
  /** The URL as given. */
  original_url: string;
  /** Where the server redirects to, resolved against the URL that answered. */
  redirect_url: string;
};

declare const tools: {
  /**
   * Append content to the end of an existing file (in its own line endings).
   */
  append_file(input: {
    /** File (`project:path` for another project). */
    path: string;
    /** Text to add (start with a newline if the file lacks a final one). */
    content: string;
    /** From read_file or your last edit; refused if the file changed since. */
    expected_version?: string | null;
    /** Skip the changed-since-read check. Default: `false`. */
    overwrite?: boolean;
  }): Promise<{
    /**
     * `file_created`, `file_updated`, `file_appended`, `replaced`, `lines_edited`, or
     * `preview` when nothing was written.
     */
    type: string;
    /** The path written, as shown to the model. */
    path: string;
    /** Whether the file was written (false for a preview or 0 replacements). */
    written: boolean;
    /** Bytes of the file now (or, for a preview, after the change). */
    bytes: number;
    /** Lines of the file now (or, for a preview, after the change). */
    line_count: number;
    /**
     * The file's version now (for a preview, as it still is): pass it as `expected_version`
     * to the next edit.
     */
    version: string;
    /** Replacements made (`replace_in_file` only). */
    replacements?: number | null;
    /** A unified diff of the change (edits; cut at the configured size). */
    diff?: string | null;
    /** One sentence saying what happened. */
    message: string;
    /**
     * What the language server of the file's language says of it now (its errors), when
     * one runs and answered within its short wait (`replace_in_file`, `edit_lines`).
     */
    diagnostics?: AppendFileOutput_EditDiagnostics[];
  }>;

  /**
   * Edit files with a patch: add, delete, update and rename files in one call, all or nothing. Format:
   *
   * *** Begin Patch
   * *** Add File: <path>      then every line, each starting with `+`
   * *** Delete File: <path>
   * *** Update File: <path>
   * *** Move to: <new path>   (optional, right after Update File)
   * @@ <a line above the change, e.g. `@@ def total(self):`>
   *  <context line, starting with a space>
   * -<old line>
   * +<new line>
   * *** End of File           (optional: the hunk ends the file)
   * *** End Patch
   *
   * Give 3 lines of context around each change, copied exactly; add `@@` lines naming the class or function if that is not unique. Never use line numbers. If a hunk does not match, nothing is written and the error shows the nearest text. Add File never overwrites.
   */
  apply_patch(input: {
    /** The patch, from `*** Begin Patch` to `*** End Patch`. */
    patch: string;
    /** Skip the check that files are unchanged since read. Default: `false`. */
    overwrite?: boolean;
    /** read_file versions of changed files; refused if one changed since. Default: `[]`. */
    expected_versions?: ApplyPatch_ExpectedVersion[];
  }): Promise<{
    /** Always `patch_applied`. */
    type: string;
    /** One entry per file operation, in patch order. */
    files: ApplyPatchOutput_FileChange[];
    /** Lines added over all files. */
    lines_added: number;
    /** Lines removed over all files (lines of files too large to count left out). */
    lines_removed: number;
    /** Whether any hunk matched only loosely (see each hunk's `level`): worth a look. */
    loose_matches: boolean;
    /**
     * What the language servers of the changed files' languages say of them now (their
     * errors), for the files whose server runs and answered within its short wait.
     */
    diagnostics?: ApplyPatchOutput_EditDiagnostics[];
  }>;

  /**
   * Run a command with `bash -c` in a project directory; returns the exit code, stdout and stderr. Long output keeps head and tail: filter it (grep, head, tail). Catastrophic commands (rm -rf /, sudo) are refused. Prefer the file and search tools for files.
   */
  bash(input: {
    /** The command line, run with `bash -c`. Chain commands with `&&`; stdin is closed. */
    command: string;
    /** What the command does, in 5-10 words (shown to the user while it runs). */
    description?: string | null;
    /** Seconds the command may run (default 5; at most 60 unless the host allows more). */
    timeout?: number | null;
    /** Directory (`project:dir`, or relative to the first project); default its root. */
    working_dir?: string | null;
    /** Answer at once with an id for the process tool. Default: `false`. */
    run_in_background?: boolean;
  }): Promise<string>;

  /**
   * Ask the file's language server about the symbol at path:line (give symbol, the name on that line, or column). Edits report new errors of files whose server runs.
   */
  code(input: {
    /**
     * The action to perform, one of:
     * - `definition` (path, line, [symbol], [column]): Where it is defined.
     * - `references` (path, line, [symbol], [column], [max_results], [offset]): Its uses.
     * - `hover` (path, line, [symbol], [column]): Its type and docs.
     * - `symbols` (path, [max_results], [offset]): The file's symbols.
     * - `workspace_symbols` (query, [path], [language], [max_results], [offset]): The project's symbols matching query.
     * - `diagnostics` (path, [max_results], [offset]): The file's errors and warnings.
     * - `calls` (path, line, [symbol], [column], [direction], [max_results], [offset]): Its callers (incoming) or callees (outgoing).
     */
    action: "definition" | "references" | "hover" | "symbols" | "workspace_symbols" | "diagnostics" | "calls";
    /** File (`project:path` for another project) (required for the `definition`, `references`, `hover`, `symbols`, `diagnostics` and `calls` actions). Default: `"."`. */
    path?: string;
    /** 1-based (required for the `definition`, `references`, `hover` and `calls` actions). */
    line?: number;
    /** The name on that line, or give column (only for the `definition`, `references`, `hover` and `calls` actions). */
    symbol?: string | null;
    /** 1-based, in characters (only for the `definition`, `references`, `hover` and `calls` actions). */
    column?: number | null;
    /** Default 50 (only for the `references`, `symbols`, `workspace_symbols`, `diagnostics` and `calls` actions). */
    max_results?: number | null;
    /** Results to skip (only for the `references`, `symbols`, `workspace_symbols`, `diagnostics` and `calls` actions). Default: `0`. */
    offset?: number;
    /** A name or part of one (required for the `workspace_symbols` action). */
    query?: string;
    /** With a directory path: c, python, rust.. (only for the `workspace_symbols` action). */
    language?: string | null;
    /** Default incoming (only for the `calls` action). */
    direction?: Code_CallDirection | null;
  }): Promise<{
    /** Always `code_results`. */
    type: string;
    /** The action answered. */
    action: string;
    /** The lines shown (`path:line: text` in the text). */
    results?: CodeOutput_CodeItem[];
    /** Lines found in all. */
    total: number;
    /** The offset of the first line shown (absent for 0). */
    offset?: number;
    /** The offset that shows the next lines, when there are more. */
    next_offset?: number | null;
    /** The hover text (`hover`). */
    hover?: string | null;
    /** The language server that answered. */
    server: string;
    /** What else the model should know (a restarted server, results left out). */
    note?: string | null;
  }>;

  /**
   * Create a file. Fails if it exists unless overwrite is true.
   */
  create_file(input: {
    /** File (`project:path` for another project). */
    path: string;
    /** The whole content of the file. */
    content: string;
    /** Replace the file if it exists. Default: `false`. */
    overwrite?: boolean;
    /** Create missing parent directories. Default: `false`. */
    create_parents?: boolean;
  }): Promise<{
    /**
     * `file_created`, `file_updated`, `file_appended`, `replaced`, `lines_edited`, or
     * `preview` when nothing was written.
     */
    type: string;
    /** The path written, as shown to the model. */
    path: string;
    /** Whether the file was written (false for a preview or 0 replacements). */
    written: boolean;
    /** Bytes of the file now (or, for a preview, after the change). */
    bytes: number;
    /** Lines of the file now (or, for a preview, after the change). */
    line_count: number;
    /**
     * The file's version now (for a preview, as it still is): pass it as `expected_version`
     * to the next edit.
     */
    version: string;
    /** Replacements made (`replace_in_file` only). */
    replacements?: number | null;
    /** A unified diff of the change (edits; cut at the configured size). */
    diff?: string | null;
    /** One sentence saying what happened. */
    message: string;
    /**
     * What the language server of the file's language says of it now (its errors), when
     * one runs and answered within its short wait (`replace_in_file`, `edit_lines`).
     */
    diagnostics?: CreateFileOutput_EditDiagnostics[];
  }>;

  /**
   * Delete files; a directory needs recursive: true. All or nothing: if one cannot be deleted, none is.
   */
  delete_file(input: {
    /** Files or directories (`project:path` for another project). */
    paths: string[];
    /** Delete directories with their contents. Default: `false`. */
    recursive?: boolean;
    /** Skip the changed-since-read check. Default: `false`. */
    overwrite?: boolean;
    /** From read_file or your last edits; refused if a file changed since. Default: `[]`. */
    expected_versions?: DeleteFile_ExpectedVersion[];
  }): Promise<{
    /** Always `files_deleted`. */
    type: string;
    /** The paths deleted. */
    deleted: string[];
    /** How many were directories (deleted with what they held). */
    directories: number;
  }>;

  /**
   * Insert, delete or replace lines by number. Pass expected (the current text of those lines) so stale line numbers fail instead of editing the wrong lines. Returns the diff.
   */
  edit_lines(input: {
    /** File (`project:path` for another project). */
    path: string;
    /** insert, delete or replace. */
    operation: EditLines_LineOperation;
    /** 1-based; insert goes after it (0: top). */
    start_line: number;
    /** Inclusive (delete, replace); default start_line. */
    end_line?: number | null;
    /** New lines (insert, replace). */
    content?: string | null;
    /** Current text of those lines (insert: of start_line); the edit fails if it differs. */
    expected?: string | null;
    /** From read_file or your last edit; refused if the file changed since. */
    expected_version?: string | null;
    /** Skip the changed-since-read check. Default: `false`. */
    overwrite?: boolean;
  }): Promise<{
    /**
     * `file_created`, `file_updated`, `file_appended`, `replaced`, `lines_edited`, or
     * `preview` when nothing was written.
     */
    type: string;
    /** The path written, as shown to the model. */
    path: string;
    /** Whether the file was written (false for a preview or 0 replacements). */
    written: boolean;
    /** Bytes of the file now (or, for a preview, after the change). */
    bytes: number;
    /** Lines of the file now (or, for a preview, after the change). */
    line_count: number;
    /**
     * The file's version now (for a preview, as it still is): pass it as `expected_version`
     * to the next edit.
     */
    version: string;
    /** Replacements made (`replace_in_file` only). */
    replacements?: number | null;
    /** A unified diff of the change (edits; cut at the configured size). */
    diff?: string | null;
    /** One sentence saying what happened. */
    message: string;
    /**
     * What the language server of the file's language says of it now (its errors), when
     * one runs and answered within its short wait (`replace_in_file`, `edit_lines`).
     */
    diagnostics?: EditLinesOutput_EditDiagnostics[];
  }>;

  /**
   * Find files (not directories) by glob, relative to path. `*` and `?` stop at `/`; `**` spans directories; `{a,b}`, `[a-z]`. Without `/` a pattern matches names at any depth ("*.rs"); with one it is anchored at path. Skips .gitignored and hidden files.
   */
  glob(input: {
    /** e.g. "**\/*.tsx", "src/**\/*.test.ts"; a leading ! excludes. */
    pattern: string;
    /** Directory (`project:path` for another project). Default: `"."`. */
    path?: string;
    /** Globs to leave out: ["node_modules", "dist/**"]. */
    exclude?: string[] | null;
    /** Default 100, at most 5000. */
    max_results?: number | null;
    /** path (default) or modified (newest first). */
    sort?: Glob_GlobSort | null;
    /** Files to skip. Default: `0`. */
    offset?: number;
    /** Include dot files. Default: `false`. */
    include_hidden?: boolean;
    /** Skip what .gitignore ignores. Default: `true`. */
    respect_gitignore?: boolean;
  }): Promise<{
    /** Always `glob_results`. */
    type: string;
    /** The files shown, as the model writes paths. */
    files: string[];
    /** Files that match. */
    total: number;
    /** Whether `total` is exact (`false` when the walk stopped at the deadline or its file cap). */
    exact: boolean;
    /** The offset of the first file shown (absent for 0). */
    offset?: number;
    /** The offset that shows the next files, when there are more. */
    next_offset?: number | null;
    /** What was found and shown, and how to see more. */
    summary: string;
  }>;

  /**
   * Search file contents with a regex (ripgrep syntax), case-insensitive by default; skips .gitignored, hidden, binary and large files. For literal text, use search.
   */
  grep(input: {
    /** e.g. "fn\\s+main", "TODO|FIXME". */
    pattern: string;
    /** File or directory (`project:path` for another project). Default: `"."`. */
    path?: string;
    /** Default: `false`. */
    case_sensitive?: boolean;
    /** Default: `false`. */
    smart_case?: boolean;
    /** e.g. "tsx", "rust". */
    file_type?: string | null;
    /** e.g. ["*.rs", "!**\/tests/**"]. */
    glob?: string[] | null;
    /** Default 50, at most 1000. */
    max_results?: number | null;
    /** Default content. */
    output_mode?: Grep_OutputMode | null;
    before?: number | null;
    after?: number | null;
    context?: number | null;
    /** `.` still stops at line ends; use [\s\S]. Default: `false`. */
    multiline?: boolean;
    /** Results to skip. Default: `0`. */
    offset?: number;
    /** Default: `false`. */
    include_hidden?: boolean;
    /** Default: `true`. */
    respect_gitignore?: boolean;
  }): Promise<{
    /** `grep_results` or `file_search_results`. */
    type: string;
    /**
     * `content` mode: each file's lines, by path: `N:text` for a matching line (a multiline
     * match's lines in one entry), `N-text` for a context line. Long lines are cut around
     * the match with `…`.
     */
    matches?: { [key: string]: string[] };
    /** `files_with_matches` mode: the files shown, sorted. */
    files?: string[];
    /** `count` mode: matches per file, for the files shown. */
    counts?: { [key: string]: number };
    /** Files whose path contains the text (`search` only), sorted. */
    path_matches?: string[] | null;
    /**
     * Matches found (matching lines; in multiline mode, matches). Absent in
     * `files_with_matches` mode, which stops reading a file at its first match.
     */
    total_matches?: number | null;
    /** Files with matches. */
    total_files: number;
    /**
     * Whether the totals are exact; `false` when the search stopped early (it had what it
     * returns, or the deadline came), so they are lower bounds.
     */
    exact: boolean;
    /** The offset of the first result shown (absent for 0). */
    offset?: number;
    /** The offset that shows the next results, when there are more. */
    next_offset?: number | null;
    /** Files left out. */
    skipped?: GrepOutput_Skipped;
    /** Why the search stopped before the end (the call's deadline, or a cancellation). */
    interrupted?: string | null;
    /** What else cut the results short (the output size limit, the walk's file cap). */
    note?: string | null;
  }>;

  /**
   * List a directory's entries with their sizes, sorted; the rest past limit counted as "N more". Symbolic links are listed, not followed.
   */
  list_directory(input: {
    /** Directory (`project:path` for another project). Default: `"."`. */
    path?: string;
    /** Default 1, at most 10. */
    depth?: number | null;
    /** Default 500, at most 5,000. */
    limit?: number | null;
    /** Skip what .gitignore ignores. Default: `true`. */
    respect_gitignore?: boolean;
  }): Promise<{
    /** Always `directory_listing`. */
    type: string;
    /** The directory listed. */
    path: string;
    /**
     * The entries, by their path relative to the listed directory: a directory's ends in
     * `/`, a symbolic link's in `@`; the value is a file's size in bytes, `null` for the
     * others. One map rather than an object per entry, so the structured answer costs no
     * more than the text.
     */
    entries: { [key: string]: number | null };
    /** Entries found but not shown (past `limit` or the output cap; absent for 0). */
    more?: number;
    /**
     * Whether the walk stopped counting, so there may be more than `more` (absent when
     * false).
     */
    more_uncounted?: boolean;
    /** Entries left out because a `.gitignore` ignores them (absent for 0). */
    ignored?: number;
    /** What was left out and how to see it. */
    note?: string | null;
  }>;

  /**
   * List the projects (workspace roots) the file tools may access: name, path and whether it is read-only. Name a file in a project as `name:path`; paths without a name refer to the first project.
   */
  list_projects(input: Record<string, never>): Promise<{
    /** Always `projects`. */
    type: string;
    /** The roots, the default one (relative paths) first. */
    projects: ListProjectsOutput_Project[];
  }>;

  /**
   * Processes bash started with run_in_background.
   */
  process(input: {
    /**
     * The action to perform, one of:
     * - `list`: Your processes.
     * - `output` (id, [offset]): New output since the last read.
     * - `write` (id, input): Write input to stdin (end lines with \n).
     * - `kill` (id): Kill it and its children.
     */
    action: "list" | "output" | "write" | "kill";
    /** From bash (required for the `output`, `write` and `kill` actions). */
    id?: string;
    /** Byte to read from (only for the `output` action). */
    offset?: number | null;
    /** Required for the `write` action. */
    input?: string;
  }): Promise<string>;

  /**
   * View or update your prompts and name. prompt_type: system, conversation_consolidation, memory_management, or name. action: view or update.
   */
  prompt_manager(input: {
    /**
     * The action to perform, one of:
     * - `view` (prompt_type): Show the current value.
     * - `update` (prompt_type, content): Replace the value with `content`.
     */
    action: "view" | "update";
    /** One of: system, conversation_consolidation, memory_management, name. */
    prompt_type: PromptManager_PromptType;
    /** New value (required for the `update` action). */
    content?: string;
  }): Promise<{
    /** The prompt type that was viewed. */
    prompt_type: PromptManagerOutput_PromptType;
    /** Its value, or `"(not set)"` when it is empty or was never set. */
    value: string;
    /** The current agent's name. */
    agent_name: string;
  } | {
    /** The prompt type that was updated. */
    prompt_type: PromptManagerOutput_PromptType;
    /** Always `true`: a failed update is an error instead. */
    success: boolean;
    /** The value now stored. */
    new_value: string;
    /** The agent's name after the update (the new one when the name was updated). */
    agent_name: string;
  }>;

  /**
   * Read files; text numbered like `cat -n`, by default at most 2,000 lines of 2,000 characters per file (the answer says how to read on), with a version that edits take as expected_version. Images are shown; PDFs give their text.
   */
  read_file(input: {
    /** Each may name a line range: `path:10-20`, `path:100-`. */
    paths: string[];
    /** First line, 1-based. */
    offset?: number | null;
    /** Lines per file (default 2,000). */
    limit?: number | null;
    /** PDF pages, e.g. "2-3". */
    pages?: string | null;
  }): Promise<{
    /** Always `files_read`. */
    type: string;
    /** How many files were read. */
    files_read: number;
    /** The files read, in the order asked. */
    files: ReadFileOutput_FileContent[];
    /** The paths that failed; the others were still read. */
    failed: ReadFileOutput_FailedRead[];
  }>;

  /**
   * Find and replace text in a file. Without replace_all, find must match exactly once (an error lists every match). No match is 0 replacements.
   */
  replace_in_file(input: {
    /** File (`project:path` for another project). */
    path: string;
    /** Literal text, or a regex if is_regex. */
    find: string;
    /** The replacement text. */
    replace: string;
    /** find is a regex; replace may use $1. Default: `false`. */
    is_regex?: boolean;
    /** Else find must match exactly once. Default: `false`. */
    replace_all?: boolean;
    /** Return the diff, write nothing. Default: `false`. */
    preview_only?: boolean;
    /** From read_file or your last edit; refused if the file changed since. */
    expected_version?: string | null;
    /** Skip the changed-since-read check. Default: `false`. */
    overwrite?: boolean;
  }): Promise<{
    /**
     * `file_created`, `file_updated`, `file_appended`, `replaced`, `lines_edited`, or
     * `preview` when nothing was written.
     */
    type: string;
    /** The path written, as shown to the model. */
    path: string;
    /** Whether the file was written (false for a preview or 0 replacements). */
    written: boolean;
    /** Bytes of the file now (or, for a preview, after the change). */
    bytes: number;
    /** Lines of the file now (or, for a preview, after the change). */
    line_count: number;
    /**
     * The file's version now (for a preview, as it still is): pass it as `expected_version`
     * to the next edit.
     */
    version: string;
    /** Replacements made (`replace_in_file` only). */
    replacements?: number | null;
    /** A unified diff of the change (edits; cut at the configured size). */
    diff?: string | null;
    /** One sentence saying what happened. */
    message: string;
    /**
     * What the language server of the file's language says of it now (its errors), when
     * one runs and answered within its short wait (`replace_in_file`, `edit_lines`).
     */
    diagnostics?: ReplaceInFileOutput_EditDiagnostics[];
  }>;

  /**
   * Find literal text in file paths and contents in one call. Case-insensitive by default. Skips .gitignored, hidden, binary and large files. max_results (default 50) and offset page through the lines. Use grep for regular expressions.
   */
  search(input: {
    /** Taken literally: "foo(bar" finds exactly that. */
    query: string;
    /** File or directory (`project:path` for another project). Default: `"."`. */
    path?: string;
    /** Match case exactly. Default: `false`. */
    case_sensitive?: boolean;
    /** An extension ("rs") or ripgrep type ("rust"). */
    file_type?: string | null;
    /** Globs relative to path; "!" excludes. */
    glob?: string[] | null;
    /** Default 50, at most 1000. */
    max_results?: number | null;
    /** Matching lines to skip. Default: `0`. */
    offset?: number;
  }): Promise<{
    /** `grep_results` or `file_search_results`. */
    type: string;
    /**
     * `content` mode: each file's lines, by path: `N:text` for a matching line (a multiline
     * match's lines in one entry), `N-text` for a context line. Long lines are cut around
     * the match with `…`.
     */
    matches?: { [key: string]: string[] };
    /** `files_with_matches` mode: the files shown, sorted. */
    files?: string[];
    /** `count` mode: matches per file, for the files shown. */
    counts?: { [key: string]: number };
    /** Files whose path contains the text (`search` only), sorted. */
    path_matches?: string[] | null;
    /**
     * Matches found (matching lines; in multiline mode, matches). Absent in
     * `files_with_matches` mode, which stops reading a file at its first match.
     */
    total_matches?: number | null;
    /** Files with matches. */
    total_files: number;
    /**
     * Whether the totals are exact; `false` when the search stopped early (it had what it
     * returns, or the deadline came), so they are lower bounds.
     */
    exact: boolean;
    /** The offset of the first result shown (absent for 0). */
    offset?: number;
    /** The offset that shows the next results, when there are more. */
    next_offset?: number | null;
    /** Files left out. */
    skipped?: SearchOutput_Skipped;
    /** Why the search stopped before the end (the call's deadline, or a cancellation). */
    interrupted?: string | null;
    /** What else cut the results short (the output size limit, the walk's file cap). */
    note?: string | null;
  }>;

  /**
   * Replace the whole content of an existing file, keeping its line endings and byte-order mark.
   */
  update_file(input: {
    /** File (`project:path` for another project). */
    path: string;
    /** The whole new content. */
    content: string;
    /** From read_file or your last edit; refused if the file changed since. */
    expected_version?: string | null;
    /** Skip the changed-since-read check. Default: `false`. */
    overwrite?: boolean;
  }): Promise<{
    /**
     * `file_created`, `file_updated`, `file_appended`, `replaced`, `lines_edited`, or
     * `preview` when nothing was written.
     */
    type: string;
    /** The path written, as shown to the model. */
    path: string;
    /** Whether the file was written (false for a preview or 0 replacements). */
    written: boolean;
    /** Bytes of the file now (or, for a preview, after the change). */
    bytes: number;
    /** Lines of the file now (or, for a preview, after the change). */
    line_count: number;
    /**
     * The file's version now (for a preview, as it still is): pass it as `expected_version`
     * to the next edit.
     */
    version: string;
    /** Replacements made (`replace_in_file` only). */
    replacements?: number | null;
    /** A unified diff of the change (edits; cut at the configured size). */
    diff?: string | null;
    /** One sentence saying what happened. */
    message: string;
    /**
     * What the language server of the file's language says of it now (its errors), when
     * one runs and answered within its short wait (`replace_in_file`, `edit_lines`).
     */
    diagnostics?: UpdateFileOutput_EditDiagnostics[];
  }>;

  /**
   * Write your plan for the task: every step with its status (pending, in_progress, completed), at most one in_progress. Send the whole plan each time a step starts or ends.
   */
  update_plan(input: {
    /** The steps, in order. */
    plan: UpdatePlan_PlanStep[];
    /** Why the plan changed (optional). */
    explanation?: string | null;
  }): Promise<{
    /** Always `plan_updated`. */
    type: string;
    /** The steps, in order. */
    plan: UpdatePlanOutput_PlanStep[];
    /** How many are completed. */
    completed: number;
    /** Why the plan changed, when the call said. */
    explanation?: string | null;
  }>;

  /**
   * Search the web or fetch a page. action: search (query) or fetch (URL). Limited to 10 searches per response.
   */
  web(input: {
    /**
     * The action to perform, one of:
     * - `search` (query_or_url): Search the web for `query_or_url`: at most 10 results.
     * - `fetch` (query_or_url, [start_index]): Fetch the page at the http(s) URL `query_or_url` as readable text, 40,000 characters at a time; a redirect is answered as `redirect`.
     */
    action: "search" | "fetch";
    /** Search query for 'search' action, or URL for 'fetch' action. */
    query_or_url: string;
    /** Character offset in the page's text to start at; pass the previous answer's `next_start_index` (only for the `fetch` action). Default: `0`. */
    start_index?: number;
  }): Promise<{
    type: "search_results";
  } & WebOutput_SearchResults | {
    type: "fetched_page";
  } & WebOutput_FetchedPage | {
    type: "redirect";
  } & WebOutput_Redirect>;
};
