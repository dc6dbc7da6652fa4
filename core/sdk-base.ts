/**
 * Everything in the SDK except the capability catalogue (which is built on it). Plugins import
 * `core/sdk.ts`, never this file; it exists so the catalogue can use the SDK without a cycle.
 */
export { Type, type Static, type TSchema } from '@sinclair/typebox';
export { definePlugin, defineEndpoint, defineCapability, implement, type TypedMappings } from './plugin/define.js';
export { providerStatusError } from './plugin/upstream-errors.js';
export { runTool, ToolError, Gate, withScratch, type ToolResult, type ToolFailure, type ToolRunOptions, type ToolEngine, type ImageHeader } from './plugin/local-tools.js';
export { runGatedTool, type GatedToolCall } from './plugin/local-tools.js';
export { readImageHeader, IMAGE_FORMATS_TEXT } from './engines/tools/image-header.js';
export { refuseReferencing, demuxerOf, MEDIA_DEMUXERS, IMAGE_DEMUXERS, LOCAL_ONLY } from './engines/tools/media-guard.js';
export { loadInput, loadInputToFile, fromBase64, fromUrl, tooLarge, sizeText, type LoadedInput, type FileInput } from './plugin/inputs.js';
export { DOCUMENT_MEDIA_TYPES } from './plugin/document-types.js';
export { providerRequest, providerMessage, mapProviderStatus, invalidStructure, type ProviderCall, type ProviderAnswer, type ProviderAuth } from './plugin/provider-request.js';
export { serveLoopback, type LoopbackServer } from './testing/loopback.js';
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
export type { JobItemSpec, JobStepResult, JobSteps } from './plugin/job-steps.js';
export { flat, perUnit, perOutputMb, MB, type CostRule, type Units } from './credits/cost.js';
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
