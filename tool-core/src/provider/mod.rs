//! Provider formats: export tool definitions to OpenAI, Anthropic, Gemini, MCP and an XML
//! prompt block, import their tool calls, and render results back.
