export * from '../../shared/ai/index.ts'
export { ReservedEventIdError as ReservedIdCheck } from '../../shared/log/errors.ts'
