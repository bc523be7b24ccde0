export * from '../../shared/ai.ts'
export { ReservedEventIdError as ReservedIdCheck } from '../../shared/log/errors.ts'
