declare module 'openapi-to-postmanv2' {
  interface ConversionResult {
    result: boolean;
    reason?: string;
    output?: Array<{ type: string; data: unknown }>;
  }
  const Converter: {
    convert(
      input: { type: 'json' | 'string' | 'file'; data: object | string },
      options: Record<string, unknown>,
      callback: (error: Error | null, result: ConversionResult) => void,
    ): void;
  };
  export default Converter;
}
