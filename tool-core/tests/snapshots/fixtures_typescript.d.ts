// Tool declarations for code mode: call `await tools.NAME(input)`.
// Generated from the tools' JSON schemas; every call is still validated by the host.

/** A person. */
type CreateUser_User = {
  /** Full name. */
  name: string;
  /** Age in years. */
  age: number;
  /** Where they live. */
  address: CreateUser_Address;
};

/** A postal address. */
type CreateUser_Address = {
  /** Street and number. */
  street: string;
  /** The city. */
  city: string;
  /** Postal code, when known. */
  zip?: string | null;
};

/** A node of an outline. */
type Outline_Node = {
  /** The heading. */
  label: string;
  /** Sub-headings. */
  children?: Outline_Node[];
};

/**
 * A colour.
 *
 * - `red`: The red one.
 * - `green`: The green one.
 */
type Paint_Color = "blue" | "red" | "green";

/** A size, without docs on the variants. */
type Paint_Size = "small" | "medium" | "large";

/** A shape, internally tagged. */
type Paint_Shape = {
  kind: "circle";
  /** Radius. */
  radius: number;
} | {
  kind: "square";
  /** Side length. */
  side: number;
};

/** One line range of a file. */
type ReadFile_Range = {
  /** First line, 1-based. */
  start: number;
  /** Last line, inclusive. */
  end: number;
};

/**
 * A speed.
 * - `slow`: Walk.
 * - `quick`: Run.
 */
type Tune_Speed = "slow" | "quick";

type Tune_Profile = {
  name: string;
  /** Default: `null`. */
  level?: number | null;
};

declare const tools: {
  /**
   * Render a scene.
   */
  "3d_render"(input: {
    /** The scene file. */
    scene: string;
  }): Promise<{
    /** Always `"done"`. */
    type: string;
  }>;

  /**
   * Set environment variables and limits.
   */
  configure(input: {
    /** Environment variables. */
    env: { [key: string]: string };
    /** Limits by name. */
    limits?: { [key: string]: number } | null;
  }): Promise<unknown>;

  /**
   * Create a user record.
   */
  create_user(input: {
    /** The user to create. */
    user: CreateUser_User;
    /** A second address, if any. */
    billing?: CreateUser_Address | null;
  }): Promise<{
    /** Always `"done"`. */
    type: string;
  }>;

  /**
   * Search file contents with a regular expression.
   */
  grep(input: {
    /** The regular expression. */
    pattern: string;
    /** Where to search; the project root when absent. */
    path?: string | null;
    /** The most matches to return. */
    max_results?: number | null;
    /** Match case. Default: `false`. */
    case_sensitive?: boolean;
    /** Lines of context around a match. */
    context?: number | null;
  }): Promise<{
    /** Always `"done"`. */
    type: string;
  }>;

  /**
   * Write an outline.
   */
  outline(input: {
    /** The outline's root. */
    root: Outline_Node;
  }): Promise<{
    /** Always `"done"`. */
    type: string;
  }>;

  /**
   * Paint a shape.
   */
  paint(input: {
    /** The colour to paint with. */
    color: Paint_Color;
    /** The brush size. */
    size?: Paint_Size | null;
    /** What to paint. */
    shape: Paint_Shape;
  }): Promise<{
    /** Always `"done"`. */
    type: string;
  }>;

  /**
   * Pick a level.
   */
  pick_level(input: {
    /** The level. */
    level: 1 | 2 | 3;
    /** A name or a number. */
    value?: string | number;
    scale?: 2;
  }): Promise<{
    /** Always `"done"`. */
    type: string;
  }>;

  /**
   * Answer pong.
   */
  ping(input: Record<string, never>): Promise<{
    /** Always `"done"`. */
    type: string;
  }>;

  /**
   * Read files.
   */
  read_file(input: {
    /** Files to read. */
    paths: string[];
    /** Line ranges to keep. */
    ranges?: ReadFile_Range[];
    /** Weights, one per path. */
    weights?: number[] | null;
    /** A matrix of cells. Default: `[]`. */
    grid?: number[][];
  }): Promise<{
    /** Always `"file_content"`. */
    type: string;
    /** The path. */
    path: string;
  }>;

  /**
   * Tune the engine.
   */
  tune(input: {
    /**
     * How to run.
     * - `fast`: Quick and loose.
     * - `safe`: Slow and careful.
     */
    mode: "fast" | "safe" | "auto";
    /** Speed to use. */
    speed?: Tune_Speed;
    /** Profile. */
    profile?: Tune_Profile;
    version?: "v2";
    /** Format: `date-time`. */
    start?: string;
    /** Format: `uuid`. */
    id?: string;
    /** Must be a number above 0. */
    ratio?: number;
    labels?: string[];
  }): Promise<{
    /** Always `"done"`. */
    type: string;
  }>;

  /**
   * Search the web or fetch a page.
   */
  web(input: {
    /** What to do: `search` the web, or `fetch` a page. */
    action: "search" | "fetch";
    /** A search query (search) or an http(s) URL (fetch). */
    query_or_url?: string;
    /** The most results (search only). Must be an integer from 1 to 20. */
    max_results?: number;
  }): Promise<{
    /** Always `"done"`. */
    type: string;
  }>;
};
