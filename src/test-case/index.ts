export { Golden, type GoldenFields } from "./golden.ts";
export {
  type Content,
  contentText,
  describeImage,
  hasImages,
  type ImageOptions,
  type ImagePart,
  type ImageSource,
  image,
  isImagePart,
  type LoadedImage,
  loadImage,
  type MultimodalContent,
  mm,
  renderContent,
} from "./image.ts";
export {
  describeTestCase,
  isBlankField,
  LLMTestCase,
  type LLMTestCaseFields,
  type TestCaseField,
  type ToolCall,
  toTestCase,
} from "./llm-test-case.ts";
