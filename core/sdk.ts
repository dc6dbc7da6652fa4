/**
 * The plugin kit: what every plugin imports, whatever capability it serves (design: house style 2).
 * Define helpers, cost rules, catalogue errors, TypeBox, context types, the provider HTTP helper,
 * input loaders and the confined tool runner. The capability catalogue (product schemas, prices
 * and the helpers providers of one capability share) is a separate entry point, `core/catalogue.ts`,
 * built on this one; the kit never imports it (issue 29), so the kit stays the same size however
 * many capabilities the service declares. The README's "Writing a plugin" section lists these names.
 */

// Declaring plugins, endpoints and capabilities.
export { Type, type Static, type TSchema } from '@sinclair/typebox';
export { definePlugin, defineEndpoint, defineCapability, implement, type TypedMappings } from './plugin/define.js';
export type {
  CapabilityDef,
  ConfigField,
  ConfigType,
  ConfigValue,
  EndpointDef,
  Example,
  Implementation,
  PluginDef,
  PluginLogger,
  ResolvedConfig,
  RunContext,
  SetupContext,
  UsageRecorder,
  Visibility,
} from './plugin/types.js';
export type { JobItemOutcome, JobItemSpec, JobStepResult, JobSteps } from './plugin/job-steps.js';

// Prices: cost rules are data on an endpoint or capability; handlers only report units.
export { flat, perUnit, perOutputMb, MB, type CostRule, type Units } from './credits/cost.js';

// Errors: the only things a handler throws; their public texts are fixed by the catalogue.
export {
  AuthError,
  BusyError,
  CodeExecutionError,
  InputError,
  InternalError,
  InsufficientCreditsError,
  MESSAGES,
  NotConfiguredError,
  NotFoundError,
  OperationFailedError,
  PayloadTooLargeError,
  ProviderAuthError,
  ProviderNotAllowedError,
  ProviderOutOfCreditsError,
  ServiceError,
  UpstreamError,
  UpstreamRateLimitError,
  UnsupportedOptionError,
} from './errors.js';

// Calling a third-party provider: one request helper that maps its failures to catalogue errors.
export { providerRequest, providerMessage, mapProviderStatus, invalidStructure, type ProviderCall, type ProviderAnswer, type ProviderAuth } from './plugin/provider-request.js';
export { providerStatusError } from './plugin/upstream-errors.js';

// Reading what a user sent: files by URL or base64, with size caps.
export { loadInput, loadInputToFile, fromBase64, fromUrl, tooLarge, sizeText, inputHead, inputHeadFor, inputSize, inputBytes, inputAsBase64, writeInputFile, type LoadedInput, type FileInput } from './plugin/inputs.js';
export { DOCUMENT_MEDIA_TYPES } from './plugin/document-types.js';
// An archive's entry names from its file (end and directory only), for sniffing an office document unread.
export { zipEntryNamesOfFile } from './engines/office/zip-admission.js';

// Running local programs, confined, and checking media before they see it.
export { runTool, ToolError, Gate, withScratch, type ToolResult, type ToolFailure, type ToolRunOptions, type ToolEngine, type ImageHeader } from './plugin/local-tools.js';
export { runGatedTool, type GatedToolCall } from './plugin/local-tools.js';
export { readImageHeader, IMAGE_FORMATS_TEXT } from './engines/tools/image-header.js';
export { refuseReferencing, demuxerOf, MEDIA_DEMUXERS, IMAGE_DEMUXERS, LOCAL_ONLY } from './engines/tools/media-guard.js';

// Fakes: a loopback HTTP server for a plugin's fake of its upstream.
export { serveLoopback, type LoopbackServer } from './testing/loopback.js';

// The engines a handler reaches through its context (types only; the instances come from the context).
export type { Engines } from './engines/types.js';
export type { RenderRequest, RenderResult, PageAction, ActionResult } from './engines/browser/types.js';
export type { PageStore, PageSnapshot, CachedAnswer } from './engines/page-store/types.js';
export type { HttpEngine, HttpRequest, HttpResponse } from './engines/http/types.js';
export type { FileStore, StoredFile, OpenedFile } from './engines/files/types.js';
export type { OfficeEngine, OfficeConvertOptions, OfficeConvertResult, OfficeStats } from './engines/office/types.js';
export type { PdfEngine, PdfMetadata, PdfAPart, MergeResult, PdfInspection } from './engines/pdf/types.js';
export type { ComputeEngine, ComputeOptions, ComputeWork, WorkName, WorkArg, WorkResult } from './engines/compute/types.js';
export type {
  ExecutionErrorInfo,
  JsRunRequest,
  JsSandbox,
  PythonSandbox,
  SandboxFetchRequest,
  SandboxFetchResponse,
  SandboxResult,
  SandboxRunRequest,
} from './engines/sandbox/types.js';
